// No fill decided once (AdSchedule.noFill) and the codes and refusals around it (issue 18, items 1–3).
import Ads
import Foundation
import Testing
import TestSupport
import Timing

@Suite struct NoFillDecisionTests {
    private static let options = AdTagOptions(initialTimeout: 2, wrapperTimeout: 1)

    /// Every no-fill answer of `NoFillServer` is "no fill" with IMA's code; one playable ad is not.
    @Test func everyNoFillAnswerIsNoFillWithItsCode() async throws {
        let server = try NoFillServer()
        defer { server.stop() }
        for answer in NoFillServer.Answer.allCases {
            do {
                let s = try await AdTagResolver(options: Self.options).load(tag: server.tag(answer))
                let noFill = try #require(s.noFill, "\(answer): \(s.issues)")
                #expect(noFill.code == answer.loaderCode, "\(answer): \(noFill)")
            } catch let e as AdLoadError {
                // the tag could not be read at all (404): the loader's error, already a failure
                #expect(answer == .notFound404 && e.code.rawValue == answer.loaderCode, "\(answer): \(e)")
            }
        }
        let playable = try await loadResponse(inlineVAST())
        #expect(playable.noFill == nil)
        // a VMAP whose breaks all fail is not "no fill" as a whole: its breaks fail one by one
        let vmap = try await loadResponse("""
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre"><vmap:AdSource><vmap:AdTagURI templateType="vast3">
            <![CDATA[\(server.tag(.emptyVAST))]]></vmap:AdTagURI></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """)
        #expect(vmap.noFill == nil && vmap.allAds.isEmpty && !vmap.errors.isEmpty)
    }

    /// An InLine without creatives behind a wrapper is 303, as the spec and vast-client-js have it.
    @Test func anEmptyInLineThroughAWrapperIs303() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let dir = Corpus.directory.appendingPathComponent("dailymotion__vast-client-js/spec/samples")
        server.route("/empty-no-creative.xml", body: try String(contentsOf: dir.appendingPathComponent("empty-no-creative.xml"), encoding: .utf8))
        let s = try await loadResponse(wrapperVAST(tag: server.url("/empty-no-creative.xml")), options: Self.options)
        #expect(s.errors.map(\.code) == [.noAdsAfterWrapper], "\(s.errors)")
        #expect(s.noFill?.code == 303)
        // a VMAP AdTagURI is the break's wrapper: the same InLine behind it is 303 too (was 200)
        let vmap = try await loadResponse("""
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre"><vmap:AdSource><vmap:AdTagURI templateType="vast3">
            <![CDATA[\(server.url("/empty-no-creative.xml"))]]></vmap:AdTagURI></vmap:AdSource></vmap:AdBreak></vmap:VMAP>
            """, options: Self.options)
        #expect(vmap.errors.map(\.code) == [.noAdsAfterWrapper], "\(vmap.errors)")
        // in the response in hand it stays a trafficking error
        let direct = try await loadResponse(try String(contentsOf: dir.appendingPathComponent("empty-no-creative.xml"), encoding: .utf8))
        #expect(direct.errors.map(\.code) == [.trafficking], "\(direct.errors)")
    }

    /// A VAST 3+ wrapper without `allowMultipleAds` keeps the first ad of the pod behind it (the
    /// spec's default), and says so; `defaultAllowMultipleAds` keeps them all.
    @Test func allowMultipleAdsDefaultIsTheSpecsAndSaysSo() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let pod = """
            <VAST version="4.2">\(["p1", "p2"].enumerated().map { i, id in
                inlineVAST(id: id, sequence: i + 1).replacingOccurrences(of: "<VAST version=\"4.2\">", with: "").replacingOccurrences(of: "</VAST>", with: "")
            }.joined())</VAST>
            """
        server.route("/pod.xml", body: pod)
        let strict = try await loadResponse(wrapperVAST(tag: server.url("/pod.xml")), options: Self.options)
        #expect(strict.allAds.map(\.id) == ["p1"])
        #expect(strict.warnings.contains { $0.message.contains("no allowMultipleAds attribute") && $0.message.contains("only of the 2 ads") },
                "\(strict.warnings)")
        var all = Self.options
        all.defaultAllowMultipleAds = true
        let lenient = try await loadResponse(wrapperVAST(tag: server.url("/pod.xml")), options: all)
        #expect(lenient.allAds.map(\.id) == ["p1", "p2"])
    }

    /// Media URLs in FFmpeg's other protocols are refused by name with 403, never "not preloaded".
    @Test func nonHTTPMediaFilesAreRefusedWithTheirScheme() {
        for url in ["subfile:,,start,0,end,0,,:/etc/passwd", "concat:/etc/passwd|/etc/hosts", "pipe:0", "data:video/mp4;base64,AAAA",
                    "ftp://ads.example.com/ad.mp4", "gopher://x/ad.mp4"] {
            let file = MediaFile(url: URLTemplate(url), delivery: "progressive", type: "video/mp4", width: 640, height: 360)
            let s = MediaFileSelector.select(mediaFiles: [file], mezzanines: [], preferences: MediaSelectionPreferences())
            #expect(s.chosen == nil && s.errorCode == .noSupportedMediaFile, "\(url)")
            #expect(s.rejected.first?.reason.contains("refused") == true, "\(url): \(s.rejected)")
        }
        let https = MediaFile(url: URLTemplate("https://cdn.example.com/ad.mp4"), delivery: "progressive", type: "video/mp4", width: 640, height: 360)
        #expect(MediaFileSelector.select(mediaFiles: [https], mezzanines: [], preferences: MediaSelectionPreferences()).chosen != nil)
    }

    /// Control bytes from a document (a NUL, an ESC in an encoding name) come out escaped.
    @Test func controlBytesFromADocumentAreEscaped() async throws {
        let doc = Data("<?xml version=\"1.0\" encoding=\"Shift\u{0}JIS\u{1B}[2J\"?><VAST version=\"3.0\"/>".utf8)
        do {
            _ = try await AdTagResolver().load(response: doc)
            Issue.record("an unsupported encoding loaded")
        } catch let e as AdLoadError {
            #expect(!e.message.unicodeScalars.contains { $0.value < 0x20 || $0.value == 0x7F }, "\(e.message.debugDescription)")
            #expect(e.message.contains("Shift\\x00JIS\\x1B[2J"), "\(e.message)")
        }
        #expect(Printable.escaped("a\u{202E}b\r\n") == "a\\u{202E}b\\x0D\\x0A")
        #expect(AdIssue(code: nil, message: "x\u{7}y").message == "x\\x07y")
    }

    /// 120,000 macros in one URL: the expansion adds at most `maxAddedBytes` (the rest is left as written).
    @Test func macroExpansionIsBounded() {
        let template = String(repeating: "[TIMESTAMP]", count: 120_000)
        let started = monotonicSeconds()
        let out = MacroExpander.expand(template, context: MacroContext())
        let seconds = monotonicSeconds() - started
        print(String(format: "macros: 120000 expanded in %.3f s", seconds))
        #expect(out.utf8.count <= template.utf8.count + MacroExpander.maxAddedBytes + 64, "\(out.utf8.count) bytes")
        #expect(out.hasSuffix("[TIMESTAMP]") && !out.hasPrefix("["))
        // an ordinary URL is expanded in full
        #expect(MacroExpander.expand("https://t.example.com/e?c=[ERRORCODE]&t=[CACHEBUSTING]", context: MacroContext(errorCode: .wrapperLimit, cacheBusting: 42))
                == "https://t.example.com/e?c=302&t=00000042")
    }
}

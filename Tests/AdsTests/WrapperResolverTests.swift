// Wrapper chains against a real HTTP server on 127.0.0.1: merging, limits, failures and their codes.
import Ads
import Foundation
import Testing
import TestSupport
import Timing

private func loader(maxRedirects: Int = 4, wrapperTimeout: Double = 1, maxBytes: Int = 2 << 20) -> AdTagResolver {
    AdTagResolver(options: AdTagOptions(maxRedirects: maxRedirects, initialTimeout: 2, wrapperTimeout: wrapperTimeout,
                                         maxDocumentBytes: maxBytes))
}

@Suite struct WrapperResolverTests {
    @Test func chainMergesEveryLevel() async throws {
        let server = try HTTPTestServer()
        server.route("/a.xml", body: wrapperVAST(id: "wa", tag: server.url("/b.xml")))
        server.route("/b.xml", body: wrapperVAST(id: "wb", tag: "c.xml"))   // relative to /b.xml
        server.route("/c.xml", body: inlineVAST(id: "inline-c", title: "Chained"))
        let s = try await loader().load(tag: server.url("/a.xml"))
        let ad = try #require(s.allAds.first)
        #expect(ad.id == "inline-c" && ad.title == "Chained")
        #expect(ad.wrappers.map(\.tagURL) == [server.url("/b.xml"), server.url("/c.xml")])
        #expect(ad.wrapperAdIds == ["wb", "wa"] && ad.wrapperSystems == ["WrapperSystem-wb", "WrapperSystem-wa"])
        #expect(ad.impressions == ["https://t.example.com/wa-imp", "https://t.example.com/wb-imp", "https://t.example.com/inline-imp"])
        #expect(ad.trackingURLs(for: "start") == ["https://t.example.com/wa-start", "https://t.example.com/wb-start", "https://t.example.com/inline-start"])
        #expect(ad.clickTracking == ["https://t.example.com/wa-click", "https://t.example.com/wb-click"])
        #expect(ad.errorURLs.count == 3)
        #expect(s.errors.isEmpty)
        #expect(server.requestCount("/a.xml") == 1 && server.requestCount("/c.xml") == 1)
    }

    @Test func wrapperLimitIs302WithEveryWrappersErrorURL() async throws {
        let server = try HTTPTestServer()
        for i in 0..<4 { server.route("/w\(i).xml", body: wrapperVAST(id: "w\(i)", tag: server.url("/w\(i + 1).xml"))) }
        server.route("/w4.xml", body: inlineVAST())
        let limited = try await loader(maxRedirects: 2).load(tag: server.url("/w0.xml"))
        #expect(limited.allAds.isEmpty)
        let e = try #require(limited.errors.first)
        #expect(e.code == .wrapperLimit && e.adId == "w2")
        #expect(e.errorURLs == ["https://t.example.com/w0-error?c=[ERRORCODE]", "https://t.example.com/w1-error?c=[ERRORCODE]",
                                "https://t.example.com/w2-error?c=[ERRORCODE]"])
        #expect(server.requestCount("/w3.xml") == 0)
        let enough = try await loader(maxRedirects: 4).load(tag: server.url("/w0.xml"))
        #expect(enough.allAds.count == 1 && enough.allAds[0].wrappers.count == 4)
    }

    @Test func loopsAreDetected() async throws {
        let server = try HTTPTestServer()
        server.route("/a.xml", body: wrapperVAST(id: "a", tag: server.url("/b.xml")))
        server.route("/b.xml", body: wrapperVAST(id: "b", tag: server.url("/a.xml")))
        server.route("/self.xml", body: wrapperVAST(id: "self", tag: server.url("/self.xml")))
        let s = try await loader(maxRedirects: 10).load(tag: server.url("/a.xml"))
        #expect(s.errors.map(\.code) == [.wrapperLimit] && s.errors[0].message.contains("loop"))
        #expect(server.requestCount("/a.xml") == 1)
        let selfLoop = try await loader(maxRedirects: 10).load(tag: server.url("/self.xml"))
        #expect(selfLoop.errors.map(\.code) == [.wrapperLimit] && server.requestCount("/self.xml") == 1)
    }

    @Test func wrapperTimeoutIs301AndFast() async throws {
        let server = try HTTPTestServer()
        // The wrapper answers after 10 minutes, so a 301 means the deadline fired. No upper bound on
        // the elapsed time: other tests may keep the 2-thread concurrency pool busy.
        server.route("/slow.xml", body: inlineVAST(), delay: 600)
        let start = Date()
        let s = try await loadResponse(wrapperVAST(tag: server.url("/slow.xml")),
                                       options: AdTagOptions(initialTimeout: 2, wrapperTimeout: 0.3))
        let elapsed = Date().timeIntervalSince(start)
        #expect(elapsed >= 0.25, "the 0.3 s timeout is not early: \(elapsed) s")
        #expect(s.errors.map(\.code) == [.wrapperTimeout] && s.errors[0].message.contains("0.3"))
        #expect(s.errors[0].errorURLs == ["https://t.example.com/wrapper-1-error?c=[ERRORCODE]"])
    }

    @Test func rootTimeoutAndHTTPErrorsThrow() async throws {
        let server = try HTTPTestServer()
        server.route("/slow.xml", body: inlineVAST(), delay: 3)
        let quick = AdTagResolver(options: AdTagOptions(initialTimeout: 0.3))
        await #expect { try await quick.load(tag: server.url("/slow.xml")) } throws: { ($0 as? AdLoadError)?.code == .wrapperTimeout }
        await #expect { try await quick.load(tag: server.url("/missing.xml")) } throws: {
            ($0 as? AdLoadError)?.message.contains("404") == true
        }
        await #expect { try await quick.load(tag: "/no/such/file.xml") } throws: { $0 is AdLoadError }
    }

    @Test func http404InChainIs301() async throws {
        let server = try HTTPTestServer()
        let s = try await loadResponse(wrapperVAST(tag: server.url("/gone.xml")))
        #expect(s.errors.map(\.code) == [.wrapperTimeout] && s.errors[0].message.contains("HTTP status 404"))
    }

    @Test func emptyAndNoAdAnswersAre303() async throws {
        let server = try HTTPTestServer()
        server.route("/empty.xml", body: "")
        server.route("/nocontent.xml", HTTPTestServer.Response(status: 204))
        server.route("/noad.xml", body: #"<VAST version="4.2"><Error><![CDATA[https://t.example.com/root-error?c=[ERRORCODE]]]></Error></VAST>"#)
        for path in ["/empty.xml", "/nocontent.xml"] {
            let s = try await loadResponse(wrapperVAST(tag: server.url(path)))
            #expect(s.errors.map(\.code) == [.noAdsAfterWrapper], "\(path)")
        }
        let s = try await loadResponse(wrapperVAST(tag: server.url("/noad.xml")))
        let e = try #require(s.errors.first)
        #expect(e.code == .noAdsAfterWrapper && e.adId == "wrapper-1")
        #expect(e.errorURLs == ["https://t.example.com/wrapper-1-error?c=[ERRORCODE]", "https://t.example.com/root-error?c=[ERRORCODE]"])
        // A root empty answer is a resolved schedule with no ads, not a failure.
        let root = try await AdTagResolver().load(tag: server.url("/nocontent.xml"))
        #expect(root.allAds.isEmpty && root.cuePoints == [0] && root.errors.map(\.code) == [.noAdsAfterWrapper])
    }

    @Test func oversizedDocumentsAreRefused() async throws {
        let server = try HTTPTestServer()
        let big = inlineVAST().replacingOccurrences(of: "<AdTitle>", with: "<AdTitle>" + String(repeating: "x", count: 300_000))
        server.route("/big.xml", body: big)
        let s = try await loadResponse(wrapperVAST(tag: server.url("/big.xml")),
                                       options: AdTagOptions(wrapperTimeout: 2, maxDocumentBytes: 100_000))
        #expect(s.errors.map(\.code) == [.xmlParsing] && s.errors[0].message.contains("100000"))
        await #expect { try await loader(maxBytes: 100_000).load(tag: server.url("/big.xml")) } throws: {
            ($0 as? AdLoadError)?.code == .xmlParsing
        }
    }

    @Test func externalEntitiesAreNeverResolved() async throws {
        let server = try HTTPTestServer()
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-secret-\(UUID().uuidString).txt")
        try Data("TOPSECRET".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let xxe = """
        <?xml version="1.0"?>
        <!DOCTYPE VAST [<!ENTITY xxe SYSTEM "\(secret.absoluteString)"><!ENTITY remote SYSTEM "\(server.url("/exfil"))">]>
        <VAST version="4.2"><Ad id="x"><InLine><AdSystem>&xxe;</AdSystem><AdTitle>&remote;</AdTitle></InLine></Ad></VAST>
        """
        server.route("/xxe.xml", body: xxe)
        let s = try await loadResponse(wrapperVAST(tag: server.url("/xxe.xml")))
        #expect(s.errors.map(\.code) == [.xmlParsing] && s.errors[0].message.contains("DOCTYPE"))
        #expect(!ScheduleReport.json(s).serialized().contains("TOPSECRET"))
        #expect(server.requestCount("/exfil") == 0)
        await #expect { try await AdTagResolver().load(tag: server.url("/xxe.xml")) } throws: { ($0 as? AdLoadError)?.code == .xmlParsing }
    }

    @Test func billionLaughsIsRejectedFast() async throws {
        var doc = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\">"
        for i in 1...9 { doc += "<!ENTITY lol\(i) \"" + String(repeating: "&lol\(i - 1 == 0 ? "" : String(i - 1));", count: 10) + "\">" }
        doc += "]>\n<VAST version=\"4.2\"><Ad><InLine><AdTitle>&lol9;</AdTitle></InLine></Ad></VAST>"
        let server = try HTTPTestServer()
        server.route("/lol.xml", body: doc)
        let s = try await loadResponse(wrapperVAST(tag: server.url("/lol.xml")))
        // Refused before any parsing (so before any expansion), whatever the machine's speed.
        #expect(s.errors.map(\.code) == [.xmlParsing])
        #expect(s.errors.first?.message.contains("DOCTYPE") == true || s.errors.first?.message.contains("ENTITY") == true,
                "\(s.errors.first?.message ?? "")")
    }

    @Test func networkDocumentsCannotReadLocalFiles() async throws {
        let local = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-local-\(UUID().uuidString).xml")
        try Data(inlineVAST(id: "local-secret").utf8).write(to: local)
        defer { try? FileManager.default.removeItem(at: local) }
        let server = try HTTPTestServer()
        server.route("/to-file.xml", body: wrapperVAST(tag: local.absoluteString))
        server.route("/redirect-to-file.xml", .redirect(to: local.absoluteString))
        server.route("/to-redirect.xml", body: wrapperVAST(id: "r", tag: server.url("/redirect-to-file.xml")))
        let s = try await loader().load(tag: server.url("/to-file.xml"))
        #expect(s.allAds.isEmpty && s.errors.map(\.code) == [.wrapperGeneral] && s.errors[0].message.contains("refused"))
        let r = try await loader().load(tag: server.url("/to-redirect.xml"))
        #expect(r.allAds.isEmpty && !r.errors.isEmpty)
        #expect(!ScheduleReport.json(r).serialized().contains("local-secret"))
        // A local document may point at a local file.
        let wrapperFile = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-wrapper-\(UUID().uuidString).xml")
        try Data(wrapperVAST(tag: local.lastPathComponent).utf8).write(to: wrapperFile)
        defer { try? FileManager.default.removeItem(at: wrapperFile) }
        let fromFile = try await loader().load(tag: wrapperFile.path)
        #expect(fromFile.allAds.map(\.id) == ["local-secret"])
    }

    @Test func followAdditionalWrappersFalseStopsTheChain() async throws {
        let server = try HTTPTestServer()
        server.route("/b.xml", body: wrapperVAST(id: "b", tag: server.url("/c.xml")))
        server.route("/c.xml", body: inlineVAST())
        let s = try await loadResponse(wrapperVAST(id: "a", tag: server.url("/b.xml"), attributes: #"followAdditionalWrappers="false""#))
        #expect(s.allAds.isEmpty && s.errors.map(\.code) == [.wrapperGeneral] && s.errors[0].adId == "b")
        #expect(server.requestCount("/c.xml") == 0)
        let followed = try await loadResponse(wrapperVAST(id: "a", tag: server.url("/b.xml"), attributes: #"followAdditionalWrappers="1""#))
        #expect(followed.allAds.count == 1)
    }

    @Test func allowMultipleAdsControlsPods() async throws {
        let server = try HTTPTestServer()
        let pod = """
        <VAST version="4.2">
          \(adElement(inlineVAST(id: "p2", sequence: 2)))
          \(adElement(inlineVAST(id: "solo")))
          \(adElement(inlineVAST(id: "p1", sequence: 1)))
        </VAST>
        """
        server.route("/pod.xml", body: pod)
        let multi = try await loadResponse(wrapperVAST(tag: server.url("/pod.xml"), attributes: #"allowMultipleAds="true""#))
        #expect(multi.breaks[0].ads.map(\.id) == ["p1", "p2"] && multi.breaks[0].ads.map(\.sequence) == [1, 2])
        let single = try await loadResponse(wrapperVAST(tag: server.url("/pod.xml"), attributes: #"allowMultipleAds="false""#))
        #expect(single.breaks[0].ads.map(\.id) == ["solo"])
        let byDefault = try await loadResponse(wrapperVAST(tag: server.url("/pod.xml")))
        #expect(byDefault.breaks[0].ads.map(\.id) == ["solo"])
    }

    @Test func fallbackOnNoAdSubstitutesFromTheBuffet() async throws {
        let server = try HTTPTestServer()
        server.route("/empty.xml", body: #"<VAST version="4.2"/>"#)
        func response(_ fallback: String) -> String {
            """
            <VAST version="4.2">
              \(adElement(wrapperVAST(id: "slot1", tag: server.url("/empty.xml"), attributes: "fallbackOnNoAd=\"\(fallback)\"", sequence: 1)))
              \(adElement(inlineVAST(id: "slot2", sequence: 2)))
              \(adElement(inlineVAST(id: "spare")))
            </VAST>
            """
        }
        let yes = try await loadResponse(response("true"))
        #expect(yes.breaks[0].ads.map(\.id) == ["spare", "slot2"] && yes.breaks[0].ads.map(\.sequence) == [1, 2])
        #expect(yes.errors.map(\.code) == [.noAdsAfterWrapper])
        let no = try await loadResponse(response("false"))
        #expect(no.breaks[0].ads.map(\.id) == ["slot2"] && no.breaks[0].standaloneAds.map(\.id) == ["spare"])
    }

    @Test func singleChildInheritsTheWrappersSequence() async throws {
        let server = try HTTPTestServer()
        server.route("/one.xml", body: inlineVAST(id: "child"))
        let s = try await loadResponse("<VAST version=\"4.2\">\(adElement(wrapperVAST(tag: server.url("/one.xml"), sequence: 3)))</VAST>")
        #expect(s.allAds.map(\.sequence) == [3])
    }

    @Test func blockedCategoryIs205() async throws {
        let server = try HTTPTestServer()
        server.route("/cat.xml", body: inlineVAST(category: "IAB8-5"))
        let blocked = #"<BlockedAdCategories authority="iabtechlab.com">IAB8-5,IAB9</BlockedAdCategories>"#
        let s = try await loadResponse(wrapperVAST(tag: server.url("/cat.xml"), extra: blocked))
        #expect(s.allAds.isEmpty && s.errors.map(\.code) == [.blockedCategory])
        #expect(s.errors[0].errorURLs.count == 2)
    }

    /// A wrapper's target that is not XML is a failed wrapper URI: 301 (the spec's "URI was either
    /// unavailable…", vast-client-js's code), not 100 (that is for the response in hand).
    @Test func wrapperReturningGarbageIs301AndVAST1Is102() async throws {
        let server = try HTTPTestServer()
        server.route("/junk.xml", body: "{ vast: null }", contentType: "application/json")
        server.route("/v1.xml", body: "<VideoAdServingTemplate><Ad/></VideoAdServingTemplate>")
        let junk = try await loadResponse(wrapperVAST(tag: server.url("/junk.xml")))
        #expect(junk.errors.map(\.code) == [.wrapperTimeout] && junk.errors[0].message.contains("not well-formed"), "\(junk.errors)")
        let v1 = try await loadResponse(wrapperVAST(tag: server.url("/v1.xml")))
        #expect(v1.errors.map(\.code) == [.unsupportedVersion])
    }
}

/// The `<Ad>` element of a one-ad document built by the helpers.
func adElement(_ vast: String) -> String {
    guard let start = vast.range(of: "<Ad "), let end = vast.range(of: "</Ad>", options: .backwards) else { return "" }
    return String(vast[start.lowerBound..<end.upperBound])
}

extension HTTPTestServer.Response {
    init(status: Int = 200, body: String, contentType: String) {
        self.init(status: status, headers: ["Content-Type": contentType], body: Data(body.utf8))
    }
}

extension HTTPTestServer {
    func route(_ path: String, body: String, contentType: String) {
        route(path, HTTPTestServer.Response(status: 200, headers: ["Content-Type": contentType], body: Data(body.utf8)))
    }
}

// Every corpus document loads without a crash and yields a schedule or the right error code.
import Ads
import Foundation
import Testing

@Suite(.enabled(if: Corpus.available, "VAST corpus not found at ../shared/vast-corpus relative to the package root"))
struct ConformanceTests {
    @Test func wholeCorpus() async throws {
        let options = AdTagOptions(wrapperTimeout: 1, allowNetwork: false)
        let rows = await ConformanceRunner.run(directory: Corpus.directory.path, options: options)
        #expect(rows.count >= 220)
        #expect(rows.filter(\.unexpected).map(\.file) == [])
        let documentCodes: Set<VASTErrorCode> = [.xmlParsing, .schemaValidation, .unsupportedVersion, .vmapSchema, .vmapVersion, .vmapParsing]
        for r in rows where r.unreadable {
            #expect(r.errorCodes.count == 1 && documentCodes.contains(r.errorCodes[0]), "\(r.file): \(r.note)")
        }
        // Every VAST 1.0 document is 102; every JS-extracted fragment (not a whole document) is 101.
        for r in rows where r.file.contains("/vast1") || r.file.hasSuffix("outdated-vast.xml") {
            #expect(r.errorCodes == [.unsupportedVersion], "\(r.file)")
        }
        let resolved = rows.filter { !$0.unreadable }
        #expect(resolved.count >= 200 && resolved.filter { $0.ads > 0 }.count >= 140)
        let table = ConformanceRunner.table(rows)
        #expect(table.contains("unexpected: 0"))
    }
}

@Suite struct ReportTests {
    @Test func jsonHasTheFieldsInspectPromises() async throws {
        let xml = inlineVAST(id: "r1", title: "Report").replacingOccurrences(of: "<Linear>", with: #"<Linear skipoffset="00:00:05">"#)
        let s = try await loadResponse(xml, base: "https://ads.example.com/tag.xml")
        let json = ScheduleReport.json(s)
        #expect(json["cuePoints"] == .array([.number(0)]))
        guard case .array(let breaks)? = json["breaks"], case .array(let ads)? = breaks.first?["ads"] else {
            Issue.record("no breaks/ads"); return
        }
        #expect(breaks.first?["timeOffset"] == .number(0) && breaks.first?["id"] == .string("preroll"))
        let ad = try #require(ads.first)
        for key in ["id", "title", "adSystem", "sequence", "duration", "skipOffset", "mediaFile", "wrappers", "impressions", "tracking"] {
            #expect(ad[key] != nil, "missing \(key)")
        }
        #expect(ad["duration"] == .number(15) && ad["skipOffset"] == .number(5) && ad["sequence"] == .null)
        #expect(ad["tracking"]?["start"] == .array([.string("https://t.example.com/inline-start")]))
        #expect(ad["mediaFile"] == .string("https://cdn.example.com/ad.mp4"))
        #expect(json["errors"] == .array([]))
        let text = ScheduleReport.text(s)
        #expect(text.contains("pre-roll at 0 s") && text.contains("skippable after 00:00:05.000") && text.contains("Report"))
    }

    @Test func errorsCarryCodeMessageAndAdId() async throws {
        let xml = inlineVAST(id: "bad").replacingOccurrences(of: #"type="video/mp4""#, with: #"type="video/x-flv""#)
        let s = try await loadResponse(xml)
        guard case .array(let errors)? = ScheduleReport.json(s)["errors"] else { Issue.record("no errors"); return }
        #expect(errors.count == 1)
        #expect(errors.first?["code"] == .int(403) && errors.first?["adId"] == .string("bad"))
        guard case .array(let breaks)? = ScheduleReport.json(s)["breaks"], case .array(let ads)? = breaks.first?["ads"] else {
            Issue.record("no ads"); return
        }
        #expect(ads.first?["mediaFile"] == JSONValue.null)
    }

    @Test func jsonEscaping() {
        let v = JSONValue.object([("a\"b", .string("line\nnext\t\u{1}")), ("n", .number(0.5)), ("z", .null)])
        #expect(v.serialized() == #"{"a\"b":"line\nnext\t\u0001","n":0.5,"z":null}"#)
    }
}

import Ads
import Foundation
import Testing

/// OpenRTB Native 1.2 responses and format definitions: what is read, and how hostile input is refused.
@Suite struct NativeResponseParserTests {
    static let full = """
        {"native": {"ver": "1.2",
          "assets": [
            {"id": 1, "required": 1, "title": {"text": "Fresh coffee"}},
            {"id": 2, "img": {"url": "https://ads.example/main.png", "w": 640, "h": 360}, "link": {"url": "shop://item/7", "clicktrackers": ["https://t.example/asset-click"]}},
            {"id": 3, "data": {"type": 2, "value": "Roasted this morning"}},
            {"id": 4, "video": {"vasttag": "<VAST version=\\"4.0\\"/>"}},
            {"id": 9, "unknown": {}}
          ],
          "link": {"url": "https://shop.example/coffee", "clicktrackers": ["https://t.example/click"], "fallback": "https://shop.example/f"},
          "imptrackers": ["https://t.example/imp"],
          "eventtrackers": [{"event": 1, "method": 1, "url": "https://t.example/ev-imp"},
                            {"event": 1, "method": 2, "url": "https://t.example/js.js"},
                            {"event": 1, "method": 1, "url": "https://t.example/imp"}],
          "jstracker": "<script></script>",
          "privacy": "https://privacy.example/about"}}
        """

    @Test func readsAssetsLinksTrackersAndPrivacy() throws {
        let r = try NativeResponseParser().parse(Data(Self.full.utf8)).get()
        #expect(r.version == "1.2")
        #expect(r.assets.map(\.id) == [1, 2, 3, 4])
        #expect(r.asset(id: 1)?.text == "Fresh coffee")
        #expect(r.asset(id: 1)?.required == true)
        #expect(r.asset(id: 2)?.content == .image(url: "https://ads.example/main.png", width: 640, height: 360))
        #expect(r.asset(id: 2)?.link?.url == "shop://item/7")
        #expect(r.asset(id: 3)?.content == .data("Roasted this morning", type: 2))
        #expect(r.asset(id: 4)?.kind == "video")
        #expect(r.link == NativeLink(url: "https://shop.example/coffee", clickTrackers: ["https://t.example/click"], fallback: "https://shop.example/f"))
        #expect(r.privacy == "https://privacy.example/about")
        // imptrackers, then image-pixel impression event trackers, each once; the JavaScript one is not a pixel
        #expect(r.impressionPixels == ["https://t.example/imp", "https://t.example/ev-imp"])
        #expect(r.warnings.count == 3)   // unknown asset, JS event tracker, jstracker
        #expect(r.warnings.contains { $0.contains("assets[4]") })
    }

    @Test func theBareNativeObjectIsAcceptedToo() throws {
        let r = try NativeResponseParser().parse(Data(#"{"assets": [{"id": 1, "title": {"text": "A"}}], "link": {"url": "https://x.example"}}"#.utf8)).get()
        #expect(r.asset(id: 1)?.text == "A")
    }

    static func error(_ json: String, parser: NativeResponseParser = NativeResponseParser()) -> String? {
        if case .failure(let e) = parser.parse(Data(json.utf8)) { return e.message }
        return nil
    }

    @Test func hostileResponsesGetOneLineErrors() {
        #expect(Self.error("{\"native\": {\"assets\": [") == "native response is not valid JSON")
        #expect(Self.error("") == "native response is empty")
        #expect(Self.error("[1,2]") == "native response must be a JSON object")
        #expect(Self.error("{\"seatbid\": []}")?.hasPrefix("no native object") == true)
        #expect(Self.error(#"{"native": "x"}"#) == "native must be an object")
        #expect(Self.error(#"{"native": {"assets": "x"}}"#) == "native.assets must be an array")
        #expect(Self.error(#"{"native": {"assets": [{"id": "1", "title": {"text": "a"}}]}}"#) == "native.assets[0].id must be an integer")
        #expect(Self.error(#"{"native": {"assets": [{"id": 1.5, "title": {"text": "a"}}]}}"#) == "native.assets[0].id must be an integer")
        #expect(Self.error(#"{"native": {"assets": [{"id": 1, "img": {"url": 5}}]}}"#) == "native.assets[0].img.url must be a string")
        #expect(Self.error(#"{"native": {"assets": [{"id": 1, "title": {}}]}}"#) == "native.assets[0].title.text is missing")
        #expect(Self.error(#"{"native": {"assets": [{"id": 1, "title": {"text": "a"}}, {"id": 1, "title": {"text": "b"}}]}}"#) == "native.assets[1].id 1 is used twice")
        #expect(Self.error(#"{"native": {"link": {"url": "https://x"}, "imptrackers": "https://x"}}"#) == "native.imptrackers must be an array of strings")
        #expect(Self.error(#"{"native": {"link": {"url": "https://x"}, "imptrackers": [1]}}"#) == "native.imptrackers[0] must be a string")
        #expect(Self.error(#"{"native": {"link": {"url": "https://x"}, "eventtrackers": [{"event": 1}]}}"#) == "native.eventtrackers[0].method is missing")
        #expect(Self.error(#"{"native": {"link": [1]}}"#) == "native.link must be an object")
        #expect(Self.error(#"{"native": {"assets": [{"id": 99999999999, "title": {"text": "a"}}]}}"#) == "native.assets[0].id is out of range")
    }

    @Test func limitsAreCheckedBeforeAnythingIsKept() {
        let small = NativeResponseParser(maxBytes: 100)
        #expect(Self.error(String(repeating: " ", count: 101) + "{}", parser: small) == "native response larger than 100 bytes (103)")
        let manyAssets = "{\"native\": {\"assets\": [" + (1...65).map { "{\"id\": \($0), \"title\": {\"text\": \"t\"}}" }.joined(separator: ",") + "]}}"
        #expect(Self.error(manyAssets) == "native.assets has 65 assets (at most 64)")
        let manyTrackers = "{\"native\": {\"link\": {\"url\": \"https://x\"}, \"imptrackers\": [" + Array(repeating: "\"https://t\"", count: 33).joined(separator: ",") + "]}}"
        #expect(Self.error(manyTrackers) == "native.imptrackers has 33 entries (at most 32)")
        let longTitle = "{\"native\": {\"assets\": [{\"id\": 1, \"title\": {\"text\": \"" + String(repeating: "a", count: 2001) + "\"}}]}}"
        #expect(Self.error(longTitle) == "native.assets[0].title.text is longer than 2000 characters")
        let deep = String(repeating: "[", count: 5000) + String(repeating: "]", count: 5000)
        #expect(Self.error(deep, parser: NativeResponseParser(maxBytes: 20_000)) != nil)
    }

    @Test func formatDefinitionsMapNamesToIds() throws {
        let json = #"{"formatID": "10063170", "name": "Simple", "assets": [{"name": "Headline", "id": 1, "type": "text"}, {"name": "MainImage", "id": 2, "type": "image"}, {"name": "Caption", "id": 3}], "template": {}}"#
        let f = try NativeFormatDefinition.parse(Data(json.utf8)).get()
        #expect(f == NativeFormatDefinition.guideSample)
        #expect(f.asset(named: "MainImage")?.id == 2)
        #expect(f.asset(named: "Nope") == nil)
        func bad(_ s: String) -> String? { if case .failure(let e) = NativeFormatDefinition.parse(Data(s.utf8)) { return e.message }; return nil }
        #expect(bad("[]") == "native format is not a JSON object")
        #expect(bad(#"{"assets": []}"#) == "native format: formatID must be a non-empty string")
        #expect(bad(#"{"formatID": "1", "assets": []}"#) == "native format 1: assets must be an array of 1 to 64 objects")
        #expect(bad(#"{"formatID": "1", "assets": [{"name": "A"}]}"#) == "native format 1: assets[0] needs a name (string) and an id (integer)")
        #expect(bad(#"{"formatID": "1", "assets": [{"name": "A", "id": 1, "type": "sound"}]}"#) == "native format 1: assets[0].type must be text, image or video, not 'sound'")
        #expect(bad(#"{"formatID": "1", "assets": [{"name": "A", "id": 1}, {"name": "A", "id": 2}]}"#) == "native format 1: asset name 'A' or id 2 is used twice")
        #expect(try NativeFormatDefinition.parse(Data(#"{"formatID": 42, "assets": [{"name": "A", "id": 1}]}"#.utf8)).get().formatID == "42")
    }
}

import Foundation
import Interlude
import Testing
import TestSupport

/// A loopback ad server for native ads: an OpenRTB Native 1.2 response of the guide's format
/// 10063170 (Headline, MainImage, Caption), its image (a 160x90 PNG of four coloured quadrants,
/// made by the ffmpeg CLI), an optional video asset (VAST pointing at a served MP4), and
/// trackers that count their hits.
struct NativeAdServer {
    let server: HTTPTestServer
    let imagePNG: Data

    /// The quadrant colours, top-left, top-right, bottom-left, bottom-right (RGB).
    static let quadrants: [(UInt8, UInt8, UInt8)] = [(255, 0, 0), (0, 255, 0), (0, 0, 255), (255, 255, 0)]

    /// A 160x90 PNG: red, lime, blue and yellow quadrants.
    static func quadrantPNG() throws -> Data {
        let url = TestMedia.cacheDirectory.appendingPathComponent("native-quadrants-160x90.png")
        if !FileManager.default.fileExists(atPath: url.path) {
            try FileManager.default.createDirectory(at: TestMedia.cacheDirectory, withIntermediateDirectories: true)
            let tmp = TestMedia.cacheDirectory.appendingPathComponent("native-quadrants-\(UUID().uuidString.prefix(6)).png")
            _ = try Tools.ffmpeg(["-v", "error", "-y", "-f", "lavfi", "-i",
                                  "color=c=red:s=160x90,format=rgb24,drawbox=x=80:y=0:w=80:h=45:c=lime:t=fill,drawbox=x=0:y=45:w=80:h=45:c=blue:t=fill,drawbox=x=80:y=45:w=80:h=45:c=yellow:t=fill",
                                  "-frames:v", "1", "-pix_fmt", "rgb24", tmp.path])
            _ = try? FileManager.default.moveItem(at: tmp, to: url)
        }
        return try Data(contentsOf: url)
    }

    init(video: URL? = nil, imageURL: String? = nil, privacy: Bool = true, deepLink: String? = "shop://item/7",
         response: String? = nil) throws {
        server = try HTTPTestServer()
        imagePNG = try Self.quadrantPNG()
        server.route("/img/main.png", .init(status: 200, headers: ["Content-Type": "image/png"], body: imagePNG))
        for p in ["/imp", "/ev-imp", "/js", "/click", "/asset-click", "/privacy", "/landing", "/fallback"] {
            server.route(p, .init(status: 200, headers: ["Content-Type": "image/gif"], body: Data([0x47, 0x49, 0x46])))
        }
        if let video {
            server.route("/media/native.mp4", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: video)))
        }
        server.route("/native.json", body: response ?? Self.response(server: server, video: video != nil, imageURL: imageURL, privacy: privacy, deepLink: deepLink))
    }

    /// The response, with URLs on `server`.
    static func response(server: HTTPTestServer, video: Bool = false, imageURL: String? = nil, privacy: Bool = true,
                         deepLink: String? = "shop://item/7", headline: String = "Fresh coffee") -> String {
        let vast = """
            <VAST version=\\"4.0\\"><Ad id=\\"nv\\"><InLine><AdSystem>Loopback</AdSystem><AdTitle>native video</AdTitle><Impression><![CDATA[\(server.url("/vimp"))]]></Impression><Creatives><Creative><Linear><Duration>00:00:02</Duration><MediaFiles><MediaFile delivery=\\"progressive\\" type=\\"video/mp4\\" width=\\"320\\" height=\\"180\\"><![CDATA[\(server.url("/media/native.mp4"))]]></MediaFile></MediaFiles></Linear></Creative></Creatives></InLine></Ad></VAST>
            """
        let videoAsset = video ? ", {\"id\": 4, \"video\": {\"vasttag\": \"\(vast)\"}}" : ""
        let assetLink = deepLink.map { ", \"link\": {\"url\": \"\($0)\", \"clicktrackers\": [\"\(server.url("/asset-click"))\"]}" } ?? ""
        return """
            {"native": {"ver": "1.2",
              "assets": [
                {"id": 1, "title": {"text": "\(headline)"}},
                {"id": 2, "img": {"url": "\(imageURL ?? server.url("/img/main.png"))", "w": 160, "h": 90}\(assetLink)},
                {"id": 3, "data": {"type": 2, "value": "Roasted this morning"}}\(videoAsset)
              ],
              "link": {"url": "\(server.url("/landing"))", "clicktrackers": ["\(server.url("/click"))"], "fallback": "\(server.url("/fallback"))"},
              "imptrackers": ["\(server.url("/imp"))"],
              "eventtrackers": [{"event": 1, "method": 1, "url": "\(server.url("/ev-imp"))"}, {"event": 1, "method": 2, "url": "\(server.url("/js"))"}]
              \(privacy ? ", \"privacy\": \"\(server.url("/privacy"))\"" : "")}}
            """
    }

    /// Waits (at most `seconds`) until `path` has been asked for `count` times; the count reached.
    func waitForHits(_ path: String, count: Int, seconds: Double = 5) async -> Int {
        let end = Date().addingTimeInterval(seconds)
        while server.requestCount(path) < count && Date() < end { try? await Task.sleep(nanoseconds: 20_000_000) }
        return server.requestCount(path)
    }
}

/// A delegate as an app writes it: asks for the guide's format, keeps what it gets.
@MainActor final class NativeDelegateProbe: CustomNativeAdLoaderDelegate {
    var ads: [CustomNativeAd] = []
    var errors: [Error] = []
    var finished = 0
    var formatIDs = ["10063170"]
    func customNativeAdFormatIDs(for adLoader: AdLoader) -> [String] { formatIDs }
    func adLoader(_ adLoader: AdLoader, didReceive customNativeAd: CustomNativeAd) { ads.append(customNativeAd) }
    func adLoader(_ adLoader: AdLoader, didFailToReceiveAdWithError error: Error) { errors.append(error) }
    func adLoaderDidFinishLoading(_ adLoader: AdLoader) { finished += 1 }

    /// Loads through `load(_:)` and waits (at most 30 s: the suite shares the machine) for the delegate to hear the end.
    func load(_ loader: AdLoader) async {
        loader.delegate = self
        loader.load(AdRequest())
        let end = Date().addingTimeInterval(30)
        while finished == 0 && Date() < end { try? await Task.sleep(nanoseconds: 10_000_000) }
    }
}

import Foundation
import TestSupport

/// A real HTTP ad server on 127.0.0.1 for end-to-end tests: a VMAP whose pre-roll comes through a
/// two-level wrapper chain, a mid-roll pod at 20.5 s (not a keyframe) with two mismatched ads (one
/// silent), a mid-roll at 31.31 s whose first ad's media is corrupt, and a post-roll. Media files
/// are served from Media/ too.
enum AdServerFixture {
    static func inline(id: String, media: String, duration: String = "00:00:05", skip: String? = nil, extra: String = "") -> String {
        """
        <Ad id="\(id)"\(extra)><InLine><AdSystem version="2">LoopbackAds</AdSystem><AdTitle>Ad \(id)</AdTitle>
        <Impression><![CDATA[http://beacons.invalid/imp?ad=\(id)&cb=[CACHEBUSTING]]]></Impression>
        <Error><![CDATA[http://beacons.invalid/err?ad=\(id)&code=[ERRORCODE]]]></Error>
        <Creatives><Creative id="cr-\(id)"><Linear\(skip.map { " skipoffset=\"\($0)\"" } ?? "")><Duration>\(duration)</Duration>
        <TrackingEvents>
        <Tracking event="start"><![CDATA[http://beacons.invalid/t?e=start&ad=\(id)]]></Tracking>
        <Tracking event="firstQuartile"><![CDATA[http://beacons.invalid/t?e=q1&ad=\(id)&at=[ADPLAYHEAD]]]></Tracking>
        <Tracking event="midpoint"><![CDATA[http://beacons.invalid/t?e=mid&ad=\(id)]]></Tracking>
        <Tracking event="thirdQuartile"><![CDATA[http://beacons.invalid/t?e=q3&ad=\(id)]]></Tracking>
        <Tracking event="complete"><![CDATA[http://beacons.invalid/t?e=complete&ad=\(id)]]></Tracking>
        <Tracking event="progress" offset="00:00:02"><![CDATA[http://beacons.invalid/t?e=p2&ad=\(id)]]></Tracking>
        </TrackingEvents>
        <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360" bitrate="800"><![CDATA[\(media)]]></MediaFile></MediaFiles>
        </Linear></Creative></Creatives></InLine></Ad>
        """
    }

    static func wrapper(id: String, next: String) -> String {
        """
        <VAST version="3.0"><Ad id="\(id)"><Wrapper><AdSystem>Wrapper-\(id)</AdSystem><VASTAdTagURI><![CDATA[\(next)]]></VASTAdTagURI>
        <Impression><![CDATA[http://beacons.invalid/imp?wrapper=\(id)]]></Impression>
        <Creatives><Creative><Linear><TrackingEvents><Tracking event="complete"><![CDATA[http://beacons.invalid/t?e=complete&wrapper=\(id)]]></Tracking></TrackingEvents></Linear></Creative></Creatives>
        </Wrapper></Ad></VAST>
        """
    }

    /// Starts the server and routes everything.
    static func start() throws -> HTTPTestServer {
        let server = try HTTPTestServer()
        let media = { (name: String) in server.url("/media/\(name)") }
        for sample in TestMedia.Sample.allCases {
            let data = try Data(contentsOf: sample.url)
            server.route("/media/\(sample.rawValue)", .init(status: 200, headers: ["Content-Type": "video/mp4"], body: data))
        }
        server.route("/wrapper1.xml", body: wrapper(id: "w1", next: server.url("/wrapper2.xml")))
        server.route("/wrapper2.xml", body: wrapper(id: "w2", next: server.url("/inline.xml")))
        server.route("/inline.xml", body: "<VAST version=\"4.0\">" + inline(id: "pre", media: media("ad-matching.mp4"), duration: "00:00:06", skip: "00:00:03") + "</VAST>")
        let vmap = """
        <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
        <vmap:AdBreak timeOffset="start" breakType="linear" breakId="pre">
          <vmap:AdSource id="s-pre"><vmap:AdTagURI templateType="vast3"><![CDATA[\(server.url("/wrapper1.xml"))]]></vmap:AdTagURI></vmap:AdSource>
          <vmap:TrackingEvents><vmap:Tracking event="breakStart"><![CDATA[http://beacons.invalid/break?e=start&id=pre]]></vmap:Tracking></vmap:TrackingEvents>
        </vmap:AdBreak>
        <vmap:AdBreak timeOffset="00:00:20.500" breakType="linear" breakId="mid1">
          <vmap:AdSource id="s-mid1" allowMultipleAds="true"><vmap:VASTAdData><VAST version="4.0">
          \(inline(id: "mid1-a", media: media("ad-mismatched.mp4"), extra: " sequence=\"1\""))
          \(inline(id: "mid1-b", media: media("ad-silent.mp4"), duration: "00:00:04", extra: " sequence=\"2\""))
          </VAST></vmap:VASTAdData></vmap:AdSource>
        </vmap:AdBreak>
        <vmap:AdBreak timeOffset="00:00:31.310" breakType="linear" breakId="mid2">
          <vmap:AdSource id="s-mid2" allowMultipleAds="true"><vmap:VASTAdData><VAST version="4.0">
          \(inline(id: "mid2-corrupt", media: media("bad-garbage.mp4"), extra: " sequence=\"1\""))
          \(inline(id: "mid2-b", media: media("ad-matching.mp4"), duration: "00:00:06", extra: " sequence=\"2\""))
          </VAST></vmap:VASTAdData></vmap:AdSource>
        </vmap:AdBreak>
        <vmap:AdBreak timeOffset="end" breakType="linear" breakId="post">
          <vmap:AdSource id="s-post"><vmap:VASTAdData><VAST version="4.0">
          \(inline(id: "post", media: media("ad-rotated.mp4"), duration: "00:00:04"))
          </VAST></vmap:VASTAdData></vmap:AdSource>
        </vmap:AdBreak>
        </vmap:VMAP>
        """
        server.route("/vmap.xml", body: vmap)
        return server
    }
}

import Foundation
import Timing
import Playback
@testable import Interlude

/// An `AdVideoDisplay` that plays nothing: it advances a 30 fps clock frame by frame so the
/// manager's state machine (events, skip, discard, seeks) can be checked without video. Media
/// named `fake-N.mp4` lasts N seconds; `missing.mp4` fails with 401. It plays each ad at once on
/// the manager's queue, every frame seen and waited for: with a manager that decides in step on
/// the main queue (`AdsLoader.steppingOnMain`), a test sees what IMA's synchronous model gives.
final class FakeDisplay: AdVideoDisplay, @unchecked Sendable {
    // @unchecked Sendable: used on the manager's queue (the main queue, for the tests that use it) only.
    var streamTime: MediaTime = .zero
    var contentTime: MediaTime = .zero
    var timeline = TimelineMap()
    var log: [String] = []
    let frame = MediaTime(value: 1, timescale: 30)

    func prepareAd(mediaPath: String) throws(AdError) -> AdMedia {
        let name = (mediaPath as NSString).lastPathComponent
        guard name.hasPrefix("fake-"), let n = Int64(name.dropFirst(5).prefix { $0.isNumber }) else {
            throw AdError(type: .adPlayingFailed, code: 401, message: "\(name) not found")
        }
        return AdMedia(url: mediaPath, width: 640, height: 360, frameRate: Rational(30, 1), hasAudio: true,
                       frames: Int(n * 30), duration: MediaTime(seconds: n))
    }

    func beginBreak(id: String, contentTime: MediaTime) { log.append("begin \(id)") }
    func endBreak() { log.append("end") }

    func playAd(_ media: AdMedia, position: Int, totalAds: Int, marks: AdFrameMarks?, queue: DispatchQueue,
                onFrame: @escaping @Sendable (MediaTime, MediaTime) -> Bool,
                completion: @escaping @Sendable (Result<PlacedAd, Error>) -> Void) {
        completion(.success(play(media, position: position, totalAds: totalAds, onFrame: onFrame)))
    }

    private func play(_ media: AdMedia, position: Int, totalAds: Int, onFrame: (MediaTime, MediaTime) -> Bool) -> PlacedAd {
        let start = streamTime
        var k: Int64 = 0
        while frame * k < media.duration {
            let at = streamTime
            streamTime += frame
            k += 1
            if !onFrame(frame * (k - 1), at) { break }
        }
        log.append("ad \((media.url as NSString).lastPathComponent) \(k) frames")
        return PlacedAd(mediaFile: media.url, streamTime: start, duration: streamTime - start, mediaDuration: media.duration,
                        podPosition: position, totalAds: totalAds, frames: k)
    }

    /// Plays content from `from` to `to` (content time), one frame at a time.
    func playContent(from: MediaTime, to: MediaTime) {
        var t = from
        while t < to { contentTime = t; streamTime += frame; t += frame }
    }
}

extension AdsLoader {
    /// A loader whose managers decide in step with their delegate, on the main queue: every
    /// delegate call is made, and answered, before the manager goes on (IMA's single-threaded
    /// model, which the table tests of the manager's decisions use).
    static func steppingOnMain(settings: Settings? = nil) -> AdsLoader {
        let loader = AdsLoader(settings: settings)
        loader.managersDecideInStep = true
        return loader
    }
}

/// Records everything a manager tells its delegate; `onEvent` lets a test act inside a callback.
@MainActor final class RecordingDelegate: @preconcurrency AdsManagerDelegate {
    var log: [String] = []
    var onEvent: ((AdsManager, AdEvent) -> Void)?
    var onProgress: ((AdsManager, Double) -> Void)?
    func adsManager(_ m: AdsManager, didReceive event: AdEvent) { log.append(event.typeString); onEvent?(m, event) }
    func adsManager(_ m: AdsManager, didReceive error: AdError) { log.append("error \(error.code)") }
    func adsManagerDidRequestContentPause(_ m: AdsManager) { log.append("pause") }
    func adsManagerDidRequestContentResume(_ m: AdsManager) { log.append("resume") }
    func adsManager(_ m: AdsManager, adDidProgressToTime mediaTime: Double, totalTime: Double) { onProgress?(m, mediaTime) }
}

enum Docs {
    static func ad(_ id: String, seconds: Int, skip: String? = nil, media: String? = nil, sequence: Int? = nil) -> String {
        let file = media ?? "fake-\(seconds).mp4"
        return """
        <Ad id="\(id)"\(sequence.map { " sequence=\"\($0)\"" } ?? "")><InLine><AdSystem>Test</AdSystem><AdTitle>\(id)</AdTitle>
        <Error><![CDATA[http://e.invalid/\(id)?c=[ERRORCODE]]]></Error>
        <Impression><![CDATA[http://i.invalid/\(id)]]></Impression>
        <Creatives><Creative id="c-\(id)"><Linear\(skip.map { " skipoffset=\"\($0)\"" } ?? "")><Duration>00:00:0\(seconds)</Duration>
        <TrackingEvents><Tracking event="skip"><![CDATA[http://t.invalid/skip/\(id)]]></Tracking>
        <Tracking event="pause"><![CDATA[http://t.invalid/pause/\(id)]]></Tracking></TrackingEvents>
        <VideoClicks><ClickThrough><![CDATA[http://landing.invalid/\(id)]]></ClickThrough><ClickTracking><![CDATA[http://t.invalid/click/\(id)]]></ClickTracking></VideoClicks>
        <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="640" height="360"><![CDATA[\(file)]]></MediaFile></MediaFiles>
        </Linear></Creative></Creatives></InLine></Ad>
        """
    }

    static func vmap(_ breaks: [(String, String)]) -> String {
        "<vmap:VMAP xmlns:vmap=\"http://www.iab.net/videosuite/vmap\" version=\"1.0\">" + breaks.enumerated().map { i, b in
            "<vmap:AdBreak timeOffset=\"\(b.0)\" breakType=\"linear\" breakId=\"b\(i)\"><vmap:AdSource id=\"s\(i)\" allowMultipleAds=\"true\"><vmap:VASTAdData><VAST version=\"4.0\">\(b.1)</VAST></vmap:VASTAdData></vmap:AdSource></vmap:AdBreak>"
        }.joined() + "</vmap:VMAP>"
    }
}

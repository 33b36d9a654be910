import Foundation
import Testing
import Timing
import TestSupport
import Playback
@testable import Interlude

/// `interlude stitch --ads` end to end, against a real ad server on 127.0.0.1: the output verified
/// frame by frame and for sync, the event sequence against IMA's order, beacon times against
/// measured durations, and error codes against the VAST table.
@MainActor @Suite(.serialized) struct TagStitchEndToEndTests {
    struct Run {
        let url: URL
        let result: StitchResult
        let log: [String]
        let frames: [VerifiedFrame]
        let segments: [IdentitySegment]
        let mediaRequests: [String: Int]
    }

    static var cached: Run?

    func run() async throws -> Run {
        if let r = Self.cached { return r }
        let server = try AdServerFixture.start()
        defer { server.stop() }
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-e2e-\(getpid())")
        try? FileManager.default.removeItem(at: dir)
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        let out = dir.appendingPathComponent("tag.mp4")
        let stitcher = TagStitcher(output: StitchRequest(content: TestMedia.Sample.content.url.path, breaks: [], output: out.path,
                                                         overwrite: true),
                                   adTag: server.url("/vmap.xml"))
        stitcher.cache = AdMediaCache(directory: dir.appendingPathComponent("cache"))
        // The whole-preload deadline is wall time across main-actor hops; other @MainActor suites
        // stitching meanwhile can hold the actor longer than the 30 s default. Not what this tests.
        stitcher.cache.preloadTimeout = 600
        let result = try await stitcher.run()
        let frames = try await MediaVerifier.videoFrames(out)
        var counts: [String: Int] = [:]
        for r in server.requests where r.path.hasPrefix("/media/") { counts[r.path, default: 0] += 1 }
        let run = Run(url: out, result: result, log: stitcher.delegateLog, frames: frames,
                      segments: MediaVerifier.segments(frames), mediaRequests: counts)
        Self.cached = run
        return run
    }

    @Test func outputFramesFollowTheVMAP() async throws {
        let r = try await run()
        // pre (2) | content | mid1: 3, 4 | content | mid2: corrupt left out, 2 | content | post: 6
        #expect(r.segments.map(\.sourceID) == [2, 1, 3, 4, 1, 2, 1, 6], "\(r.segments) \(r.result.errors.map { "\($0.code): \($0.message)" })")
        let content = r.segments.filter { $0.sourceID == 1 }
        #expect(content.map(\.firstFrame) == [0, 615, 940] && content.map(\.lastFrame) == [614, 939, 1199])
        #expect(content.allSatisfy { $0.skips == 0 && $0.repeats == 0 })
        let expectedFrames: Int = 180 + 1200 + 150 + 120 + 180 + 120
        #expect(r.frames.count == expectedFrames)
        #expect(try await MediaVerifier.ffmpegErrors(r.url) == "")
    }

    @Test func audioStaysInSync() async throws {
        let r = try await run()
        let silent = r.segments.first { $0.sourceID == 4 }!
        let silentStart = Double(silent.firstOutputIndex) / 30
        let flashes = MediaVerifier.flashTimes(r.frames).filter { !($0 >= silentStart && $0 < silentStart + 4) }
        let offsets = MediaVerifier.syncOffsets(flashTimes: flashes, beepOnsets: try await MediaVerifier.beepOnsets(r.url))
        let worst = MediaVerifier.maxAbsoluteOffset(offsets) ?? 1
        #expect(worst < 0.002, "worst A/V offset \(worst * 1000) ms")
    }

    @Test func eventsFollowIMAsOrder() async throws {
        let r = try await run()
        let ad = ["event:LOADED", "event:STARTED", "event:FIRST_QUARTILE", "event:MIDPOINT", "event:THIRD_QUARTILE", "event:COMPLETE"]
        func brk(_ ads: Int) -> [String] { ["contentPause", "event:AD_BREAK_STARTED"] + Array(repeating: ad, count: ads).flatMap { $0 } + ["event:AD_BREAK_ENDED", "contentResume"] }
        let expected = ["event:CUEPOINTS_CHANGED"] + brk(1) + brk(2) + ["event:LOG"] + brk(1) + brk(1) + ["event:ALL_ADS_COMPLETED"]
        #expect(r.log == expected, "\(r.log)")
        #expect(r.result.cuePoints == [0, 20.5, 31.31, -1])
        // events carry stream and content times: the mid-roll pod's STARTED events
        let started = r.result.events.filter { $0.type == .started }
        let frameCounts: [Int64] = [0, 795, 945, 1390, 1830]   // pre 180 + content 615 | +150 | … | post
        #expect(started.map(\.streamTime) == frameCounts.map { MediaTime(value: $0, timescale: 30) })
        #expect(started[1].contentTime == MediaTime(value: 614, timescale: 30))
        #expect(started.map { $0.ad?.adPodInfo.podIndex } == [0, 1, 1, 2, -1])
        #expect(started.map { $0.ad?.adPodInfo.adPosition } == [1, 1, 2, 1, 1])
    }

    @Test func wrapperChainIsMergedIntoThePreroll() async throws {
        let r = try await run()
        let pre = r.result.playedBreaks[0].ads[0]
        #expect(pre.ad.adId == "pre" && pre.ad.wrapperAdIDs == ["w2", "w1"] && pre.ad.wrapperSystems == ["Wrapper-w2", "Wrapper-w1"])
        #expect(pre.ad.skipTimeOffset == 3)
        let impressions = pre.tracking.filter { $0.event == "impression" }
        #expect(impressions.count == 3 && impressions.allSatisfy { $0.streamTime == .zero })
        #expect(pre.tracking.filter { $0.event == "complete" }.count == 3)
        #expect(r.result.playedBreaks[0].tracking.map(\.url) == ["http://beacons.invalid/break?e=start&id=pre"])
    }

    @Test func beaconTimesFollowMeasuredDurations() async throws {
        let r = try await run()
        let frame = MediaTime(value: 1, timescale: 30)
        for b in r.result.playedBreaks {
            for a in b.ads {
                let start = a.placement.streamTime, d = a.placement.mediaDuration
                func at(_ e: String) -> MediaTime? { a.tracking.first { $0.event == e }?.streamTime }
                #expect(at("start") == start)
                for (name, q) in [("firstQuartile", 1), ("midpoint", 2), ("thirdQuartile", 3)] {
                    let due = start + MediaTime(value: d.value * Int64(q), timescale: d.timescale * 4)
                    let got = try #require(at(name))
                    #expect(got >= due - frame && got <= due + frame, "\(a.ad.adId) \(name) at \(got.seconds) for due \(due.seconds)")
                }
                #expect(at("progress").map { ($0 - start - MediaTime(seconds: 2)).magnitude <= frame } == true)
                #expect(at("complete") == start + a.placement.duration)
                #expect(a.placement.duration == a.placement.mediaDuration, "\(a.ad.adId) plays for its real media duration")
            }
        }
        // declared 5 s for the 4 s silent ad: the real 4 s is used
        #expect(r.result.playedBreaks[1].ads[1].placement.duration == MediaTime(seconds: 4))
    }

    @Test func corruptMediaIsReportedWithItsVASTCode() async throws {
        let r = try await run()
        let e = try #require(r.result.errors.first { $0.adId == "mid2-corrupt" })
        #expect(e.code == 405 && e.type == .adPlayingFailed)
        let beacon = r.result.beacons.first { $0.event == "error" && $0.adId == "mid2-corrupt" }
        #expect(beacon?.url == "http://beacons.invalid/err?ad=mid2-corrupt&code=405")
        #expect(r.result.playedBreaks[2].ads.map(\.ad.adId) == ["mid2-b"])
        #expect(r.result.playedBreaks[2].ads[0].ad.adPodInfo.totalAds == 1)
    }

    @Test func mediaIsFetchedOncePerURL() async throws {
        let r = try await run()
        #expect(r.mediaRequests["/media/ad-matching.mp4"] == 1, "\(r.mediaRequests)")
        #expect(r.mediaRequests.values.allSatisfy { $0 == 1 })
    }

    @Test func playheadMappingIsExactToTheFrame() async throws {
        let r = try await run()
        for f in r.frames where f.identity?.sourceID == 1 {
            let c = MediaTime(value: Int64(f.identity!.frameIndex), timescale: 30)
            #expect(r.result.timeline.streamTime(forContentTime: c) == f.pts)
            #expect(r.result.timeline.contentTime(forStreamTime: f.pts!) == c)
        }
        #expect(r.result.timeline.previousCuePoint(forStreamTime: MediaTime(seconds: 30))?.id == "mid1")
    }

    @Test func reportCarriesTheIMAFields() async throws {
        let r = try await run()
        let json = try JSONSerialization.jsonObject(with: StitchReport(r.result).json()) as! [String: Any]
        #expect(json["cuePoints"] as? [Double] == [0, 20.5, 31.31, -1])
        let breaks = json["breaks"] as! [[String: Any]]
        #expect(breaks.map { $0["breakId"] as? String } == ["pre", "mid1", "mid2", "post"])
        let ad = (breaks[0]["ads"] as! [[String: Any]])[0]
        for key in ["adId", "title", "adSystem", "creativeId", "skipOffset", "tracking", "streamTime", "duration", "mediaFile"] {
            #expect(ad[key] != nil, "ad.\(key)")
        }
        let events = json["events"] as! [[String: Any]]
        #expect(events.first?["type"] as? String == "CUEPOINTS_CHANGED" && events.last?["type"] as? String == "ALL_ADS_COMPLETED")
        #expect(events.allSatisfy { $0["streamTime"] != nil && $0["contentTime"] != nil })
        #expect((json["contentSegments"] as! [Any]).count == 3)
    }
}

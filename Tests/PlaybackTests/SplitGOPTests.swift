import Foundation
import Media
import Testing
import TestSupport
@testable import Playback

/// `SplitGOP`, the splice the stitch's smart renderer and the service's cut makers share: GOPs in
/// decode order, and a split GOP decoded to the kept frames only, in order, or an error.
struct SplitGOPTests {
    /// content.mp4: 30 fps, a keyframe every 60 frames, no B-frames.
    static func firstPackets(_ count: Int) throws -> (Demuxer, Int, [Packet]) {
        let demuxer = try Demuxer(url: TestMedia.Sample.content.url.path)
        let v = try #require(demuxer.bestStream(.video))
        demuxer.keepOnly([v])
        var packets: [Packet] = []
        let scratch = try Packet()
        while packets.count < count, try demuxer.read(into: scratch) == .packet {
            if scratch.streamIndex == v { packets.append(try scratch.take()) }
        }
        return (demuxer, v, packets)
    }

    @Test func gopsStartAtKeyframes() throws {
        let (_, _, packets) = try Self.firstPackets(130)
        #expect(SplitGOP.gops(packets) == [0..<60, 60..<120, 120..<130])
        #expect(SplitGOP.gops([]) == [])
        // frames at a constant rate: frame i at 100 + 10·i; frames 3 and 4 kept
        let rank = SplitGOP.rank(keeping: 3..<5, originTicks: 100, periodTicks: 10)
        #expect([120, 130, 140, 150].map(rank) == [nil, 0, 1, nil])
    }

    @Test func aSplitGOPGivesTheKeptFramesInOrder() throws {
        let (demuxer, v, packets) = try Self.firstPackets(120)
        let gop = Array(packets[60..<120])
        let period = try #require(gop[1].ptsTicks) - gop[0].ptsTicks!
        let origin = try #require(packets[0].ptsTicks)
        let kept = 75..<90
        var got: [(Int, Int64)] = []
        try SplitGOP.decode(gop, demuxer: demuxer, streamIndex: v, count: kept.count,
                            rank: SplitGOP.rank(keeping: kept, originTicks: origin, periodTicks: period)) { k, frame in
            got.append((k, frame.bestEffortTicks ?? -1))
        }
        #expect(got.map(\.0) == Array(0..<15))
        #expect(got.map(\.1) == kept.map { origin + Int64($0) * period })
    }

    @Test func aFrameTheGOPDoesNotHoldIsAnError() throws {
        let (demuxer, v, packets) = try Self.firstPackets(120)
        let gop = Array(packets[60..<120])
        let period = try #require(gop[1].ptsTicks) - gop[0].ptsTicks!
        let origin = try #require(packets[0].ptsTicks)
        // frames 110..<125: the last five are in the next GOP
        let kept = 110..<125
        let error = #expect(throws: MediaError.self) {
            try SplitGOP.decode(gop, demuxer: demuxer, streamIndex: v, count: kept.count,
                                rank: SplitGOP.rank(keeping: kept, originTicks: origin, periodTicks: period)) { _, _ in }
        }
        #expect(error?.description.contains("10 of 15 frames decoded") == true)
        // ranks that run backwards: the decoder shows frame 61 before frame 60
        #expect(throws: MediaError.self) {
            try SplitGOP.decode(gop, demuxer: demuxer, streamIndex: v, count: 2, rank: { t in
                let i = Int((t - origin) / period)
                return i == 60 ? 1 : i == 61 ? 0 : nil
            }) { _, _ in }
        }
    }
}

import Foundation
import Interlude
import Media
import Testing
import Timing
import TestSupport
@testable import Playback

/// What a long stream in one process keeps grows with the number of breaks, not with the number of
/// frames: the soak (`scripts/soak.sh`) found two per-frame lists (the other is NUT's index on a
/// pipe: `NUTPipeCLITests`).
@Suite struct StreamMemoryBoundTests {
    /// `--null`'s counter kept the wall time of every frame (8 bytes a frame, for ever).
    @Test func aNullOutputKeepsOnlyTheLatestPresentationTimes() throws {
        let null = NullOutput(keptTimes: 100)
        let frame = try Frame()
        for i in 0..<10_000 { try null.writeVideo(frame, index: Int64(i), keyframe: true) }
        #expect(null.frameCount == 10_000)
        let times = null.presentationTimes
        #expect(times.count >= 100 && times.count <= 200)
        #expect(zip(times, times.dropFirst()).allSatisfy { $0 <= $1 })
        // a short run keeps every time
        let short = NullOutput()
        for i in 0..<500 { try short.writeVideo(frame, index: Int64(i), keyframe: true) }
        #expect(short.presentationTimes.count == 500)
    }
}

import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// The store's cues count from the content's timeline origin (`ContentTimeline`), as the stitch's
/// do: an MP4 whose every track starts 1 s late (a 1 s empty edit) cuts a cue at 1.5 s at its
/// frame 15, the first frame at or after content time 1.5 s, not at frame 45 (1.5 s after its
/// first frame, as the store counted before).
@Suite(.serialized) struct StoreContentOriginTests {
    @Test func aCueCountsFromTheTimelinesOriginNotFromTheFirstFrame() async throws {
        let clip = try StoreFixture.clip()
        let late = try await TestMedia.derived(from: clip, name: "store-clip-all-at-1s.mp4",
                                         arguments: ["-itsoffset", "1", "-i", clip.path, "-map", "1", "-c", "copy"])
        let root = StoreFixture.folder("origin")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoreFixture.store(root) { $0.contents = ["late": late.path] }
        let cut = try await store.cut("late", rendition: "180p", at: [MediaTime(value: 3, timescale: 2)])
        #expect(cut.cues == [MediaTime(value: 3, timescale: 2)], "\(cut.cues)")
        #expect(cut.runs.count == 2)
        let head = cut.runs[0].reduce(MediaTime.zero) { $0 + $1.duration }
        #expect(head == MediaTime(value: 15, timescale: 30), "frames 0…14 before the cue: \(head)")
        let tail = try StoreFixture.concatenate(cut.runs[1], store: store, into: root, name: "tail.ts")
        let frames = try await MediaVerifier.videoFrames(tail, reader: IdentityReader(output: PixelSize(width: 320, height: 180), sources: []))
        #expect(frames.first?.identity?.frameIndex == 15)
        // a cue inside the leading gap cuts before frame 0
        let early = try await store.cut("late", rendition: "180p", at: [MediaTime(value: 1, timescale: 2)])
        #expect(early.cues == [MediaTime(seconds: 1)], "\(early.cues)")
    }
}

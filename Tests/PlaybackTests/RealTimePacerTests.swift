import Foundation
import Testing
import Timing
@testable import Playback

/// An audio master clock that has played all the audio queued so far, nothing pending: what a
/// window's clock reads once its queue has run dry (after a pause, say).
private final class DrainedAudio: AudioMasterClock, @unchecked Sendable {
    // @unchecked Sendable: used from the test's thread only.
    var samples: Int64 = 0
    var audioClock: Double? { Double(samples) / 48_000 }
}

struct RealTimePacerTests {
    @Test("audio-master pacing: a frame whose audio has all played presents at once, whatever the rounding")
    func drainedAudioDoesNotWaitOutTheDeadline() {
        var pacer = RealTimePacer()
        let audio = DrainedAudio()
        audio.samples = 1600
        _ = pacer.wait(until: MediaTime(value: 1, timescale: 30), master: audio)   // anchors at 1/30 s
        let start = monotonicSeconds()
        // Frames 2...60, each with exactly its audio played: 1/30 s + (t - 1/30 s) in doubles is
        // a hair above n × 1600 / 48000 for some n, which used to wait out the 0.5 s deadline.
        for n in 2...60 {
            audio.samples = Int64(n) * 1600
            _ = pacer.wait(until: MediaTime(value: Int64(n), timescale: 30), master: audio)
        }
        #expect(monotonicSeconds() - start < 1.0)
    }
}

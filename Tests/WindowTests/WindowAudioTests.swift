import Foundation
import Testing
import TestSupport
@testable import Window

extension WindowTests {
    struct ClockSeen: Sendable {
        var driver: String?
        var advanced: Bool
        var pausedA: Double?, pausedB: Double?
        var resumed: Bool
        var clearedA: Double?, clearedB: Double?
    }

    @Test("queued audio advances the audio clock; paused it stands still; cleared it stops at what played",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func audioClockFollowsPlayback() async throws {
        let seen = try await offPool {
            try VirtualDisplay.with { _ -> ClockSeen in
                let window = try WindowOutput(format: Self.format, title: "interlude-window-test-audio", audio: true)
                defer { try? window.finish() }
                let rate = Self.format.sampleRate, count = 3 * rate
                let tone = (0..<count).map { Float(sin(2 * Double.pi * 440 * Double($0) / Double(rate)) * 0.1) }
                try window.writeAudio([tone, tone], count: count)
                var seen = ClockSeen(driver: window.audioDriver, advanced: false, resumed: false)
                seen.advanced = eventually { (window.audioClock ?? 0) > 0.05 }
                window.setPaused(true)
                seen.pausedA = window.audioClock
                usleep(300_000)
                seen.pausedB = window.audioClock
                window.setPaused(false)
                seen.resumed = eventually { (window.audioClock ?? 0) > (seen.pausedB ?? .infinity) }
                window.clearAudio()
                seen.clearedA = window.audioClock
                usleep(300_000)
                seen.clearedB = window.audioClock
                return seen
            }
        }
        #expect(seen.driver != nil)
        #expect(seen.advanced)
        #expect(seen.pausedA != nil && seen.pausedA == seen.pausedB)
        #expect(seen.resumed)
        #expect(seen.clearedA != nil && seen.clearedA == seen.clearedB)
        #expect((seen.clearedA ?? 99) < 3.0)
    }

    @Test("a frame's audio counts as played at once (up to two device buffers), so a player pacing to the clock keeps audio queued",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func clockLeavesAudioQueuedAhead() async throws {
        let (one, more) = try await offPool {
            try VirtualDisplay.with { _ -> (Double?, Double?) in
                let window = try WindowOutput(format: Self.format, title: "interlude-window-test-audio-lead", audio: true)
                defer { try? window.finish() }
                let frame = [Float](repeating: 0, count: 1600)
                try window.writeAudio([frame, frame], count: 1600)
                let one = window.audioClock
                let long = [Float](repeating: 0, count: 3 * Self.format.sampleRate)
                try window.writeAudio([long, long], count: long.count)
                return (one, window.audioClock)
            }
        }
        // A player waits for the clock to reach a frame's time before queueing that frame's audio:
        // were the queue to run dry first, the device would play silence between frames.
        #expect(one == 1600.0 / Double(Self.format.sampleRate))
        #expect((more ?? 99) < 1.0, "most of 3 s queued still waits")
    }

    @Test("without audio there is no audio clock and audio writes are dropped",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func noAudioNoClock() async throws {
        let (clock, driver) = try await offPool {
            try VirtualDisplay.with { _ -> (Double?, String?) in
                let window = try WindowOutput(format: Self.format, title: "interlude-window-test-silent", audio: false)
                defer { try? window.finish() }
                try window.writeAudio([[0.5, 0.5], [0.5, 0.5]], count: 2)
                return (window.audioClock, window.audioDriver)
            }
        }
        #expect(clock == nil)
        #expect(driver == nil)
    }
}

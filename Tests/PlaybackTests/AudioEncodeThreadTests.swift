import Foundation
import Testing
import Media
@testable import Playback

/// The audio encoder on its own thread against the same encoder called in place: the same
/// packets (bytes and timestamps) come back for each frame, in order, and a failure on the
/// muxing side reaches a producer waiting for room.
@Suite struct AudioEncodeThreadTests {
    static let rate = 48000, channels = 2

    static func makeEncoder() throws -> Encoder {
        try Encoder(audio: "aac", sampleRate: rate, channels: channels, bitRate: 128_000, globalHeader: true)
    }

    /// Two seconds of a 440 Hz tone and a 1 kHz one, cut into encoder frames and the flush.
    static func frames(frameSize: Int) throws -> [Frame?] {
        let n = 2 * rate
        func tone(_ hz: Double, _ gain: Double) -> [Float] {
            let step = 2 * Double.pi * hz / Double(rate)
            return (0..<n).map { i -> Float in Float(gain * sin(step * Double(i))) }
        }
        let pcm = [tone(440, 0.3), tone(1000, 0.2)]
        var framer = AudioFramer(channels: channels, sampleRate: rate, frameSize: frameSize, interleavedS16: false)
        var frames: [Frame?] = []
        try framer.append(pcm, count: n) { frames.append($0) }
        try framer.flush { frames.append($0) }
        return frames + [nil]
    }

    static func summary(_ packets: [Packet]) -> [String] { packets.map { "\($0.ptsTicks ?? -1):\($0.bytes.hashValue)" } }

    @Test func givesEachFramesPacketsInOrderAsOneThreadWould() throws {
        let direct = try Self.makeEncoder()
        let frames = try Self.frames(frameSize: direct.frameSize)
        let packet = try Packet()
        var expected: [[String]] = []
        for f in frames {
            try direct.send(f)
            var got: [Packet] = []
            while try direct.receive(into: packet) == .produced { got.append(try packet.take()) }
            expected.append(Self.summary(got))
        }
        // the same frames (encoded again: a frame is sent once) through the thread, collected one by one
        let thread = try AudioEncodeThread(encoder: try Self.makeEncoder(), capacity: 8)
        defer { thread.stop() }
        var collected: [[String]] = []
        let again = try Self.frames(frameSize: direct.frameSize)
        for (i, f) in again.enumerated() {
            try thread.submit(f)
            if i + 1 - collected.count == 8 { collected.append(Self.summary(try thread.collect())) }   // the capacity reached
        }
        while collected.count < again.count { collected.append(Self.summary(try thread.collect())) }
        #expect(collected == expected)
        #expect(expected.joined().count > 90)   // ~94 packets for 2 s, priming included
    }

    @Test func aFailureOnTheMuxingSideReachesAWaitingProducer() throws {
        struct DiskFull: Error {}
        let encoder = try Self.makeEncoder()
        let frames = try Self.frames(frameSize: encoder.frameSize)
        let thread = try AudioEncodeThread(encoder: encoder, capacity: 2)
        defer { thread.stop() }
        try thread.submit(frames[0])
        try thread.submit(frames[1])
        // nobody collects: the next submit waits for room until the muxing side gives up
        DispatchQueue.global().asyncAfter(deadline: .now() + 0.2) { thread.abandon(because: DiskFull()) }
        #expect(throws: DiskFull.self) { try thread.submit(frames[2]) }
    }
}

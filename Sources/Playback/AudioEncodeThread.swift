import Foundation
import Media
import Threads
import Timing

/// The audio encoder of an `EncodedOutput` on a thread of its own, so that AAC runs beside
/// libx264 instead of between its frames. Frames go in from the frame loop (`submit`); the
/// packets each one produced come back, in the same order, to the thread that muxes
/// (`collect`), which takes them at the point where it used to encode that frame itself: the
/// muxer gets the same packets in the same order as from one thread, so the file's bytes are
/// the same. The producer waits when `capacity` frames are submitted and not yet collected.
final class AudioEncodeThread: @unchecked Sendable {
    // @unchecked Sendable: the encoder and its packet are a `LoopBound` of the audio thread (set
    // up before it starts, read after `stop()` has waited for its end); everything shared is in
    // `shared`, under its lock. A submitted frame is the audio thread's alone from then on.
    private struct Coding {
        let encoder: Encoder
        let packet: Packet
    }
    private struct Shared {
        /// Frames to encode, in order (nil: flush the encoder).
        var input: [Frame?] = []
        /// Each encoded frame's packets, in order, until collected.
        var output: [[Packet]] = []
        /// Frames submitted and not yet collected.
        var outstanding = 0
        var error: Error?
        var stopping = false
        var stopped = false
        var busySeconds: Double = 0
    }
    private let owner = ThreadOwner(name: "the audio encoding thread")
    private let coding: LoopBound<Coding>
    private let shared = LockedCondition(Shared())
    private let capacity: Int

    /// Starts the thread for `encoder`; up to `capacity` frames may be submitted and not collected.
    init(encoder: Encoder, capacity: Int) throws {
        coding = LoopBound(Coding(encoder: encoder, packet: try Packet()), owner: owner, name: "the audio encoder")
        self.capacity = capacity
        let thread = Thread { [self] in run() }
        thread.name = "interlude-audio-encoder"
        thread.start()
    }

    /// Seconds the thread spent encoding (final once `stop()` returned).
    var busySeconds: Double { shared.withLock { $0.busySeconds } }

    /// Queues `frame` for encoding (nil: flush at the end), waiting while `capacity` frames are
    /// outstanding; throws the encoder's error if it failed.
    func submit(_ frame: Frame?) throws {
        try shared.holding { held throws in
            held.wait { $0.outstanding < capacity || $0.error != nil || $0.stopping }
            if let error = held.value.error { throw error }
            guard !held.value.stopping else { throw MediaError.unsupported("audio encoding has stopped") }
            held.value.input.append(frame)
            held.value.outstanding += 1
            held.broadcast()
        }
    }

    /// The packets of the oldest frame submitted and not collected, waiting for them; throws the
    /// encoder's error if it failed.
    func collect() throws -> [Packet] {
        try shared.holding { held throws in
            held.wait { !$0.output.isEmpty || $0.error != nil || $0.stopped }
            if let error = held.value.error { throw error }
            guard !held.value.output.isEmpty else { throw MediaError.unsupported("audio encoding has stopped") }
            held.value.outstanding -= 1
            held.broadcast()
            return held.value.output.removeFirst()   // a few entries at most
        }
    }

    /// The muxing side failed with `error`: the thread stops, and `submit` throws `error` from now on.
    func abandon(because error: Error) {
        shared.holding { held in
            if held.value.error == nil { held.value.error = error }
            held.value.stopping = true
            held.broadcast()
        }
    }

    /// Stops the thread (what is still queued is dropped) and waits until it has ended.
    func stop() {
        shared.holding { held in
            held.value.stopping = true
            held.broadcast()
            held.wait { $0.stopped }
        }
    }

    private func run() {
        owner.bind()
        let encoder = coding.value.encoder, packet = coding.value.packet
        while true {
            let next: Frame?? = shared.holding { held in
                held.wait { !$0.input.isEmpty || $0.stopping }
                if held.value.stopping { return .none }
                return .some(held.value.input.removeFirst())
            }
            guard case .some(let frame) = next else { break }
            let t0 = monotonicSeconds()
            do {
                try encoder.send(frame)
                var packets: [Packet] = []
                while try encoder.receive(into: packet) == .produced { packets.append(try packet.take()) }
                let busy = monotonicSeconds() - t0
                shared.holding { held in
                    held.value.output.append(packets)
                    held.value.busySeconds += busy
                    held.broadcast()
                }
            } catch {
                shared.holding { held in
                    if held.value.error == nil { held.value.error = error }
                    held.broadcast()
                }
                break
            }
        }
        owner.release()   // before `stop()` hears the end
        shared.holding { held in
            held.value.stopped = true
            held.broadcast()
        }
    }
}

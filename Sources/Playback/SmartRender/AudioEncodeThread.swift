import Foundation
import Media

/// The AAC encoder of a smart-rendered stitch on its own thread. With the content copied and the
/// ads taken from the transcode cache, encoding the audio is most of what is left to do
/// (FFmpeg's AAC encoder costs about 14 ms of CPU per second of stereo here), so it runs beside
/// the frame loop instead of inside it. The audio is still decoded, spliced to the sample and
/// encoded once, in order, by one encoder: the output is the same as encoding on the loop.
///
/// Frames go in through a short bounded queue (the loop waits when the encoder is `capacity`
/// frames behind); encoded packets come back through `takePackets()` for the loop to mux, so the
/// muxer stays on the loop's thread. The first encoder error is raised on the next call.
final class AudioEncodeThread: @unchecked Sendable {
    // @unchecked Sendable: `encoder` is touched only by the thread once started; every other
    // field is read and written under `condition`. Frames and packets change hands under it and
    // are used by one thread at a time.
    private enum Item { case frame(Frame), flush, cancel }

    private let encoder: Encoder
    private let condition = NSCondition()
    private var items: [Item] = []
    private var ready: [Packet] = []
    private var error: Error?
    private var done = false
    private let capacity: Int
    private var busy: Double = 0
    private var wait: Double = 0

    /// Starts the thread for `encoder`, which nothing else may touch from now on.
    init(encoder: Encoder, capacity: Int = 16) {
        self.encoder = encoder
        self.capacity = capacity
        let thread = Thread { [self] in run() }
        thread.name = "interlude-audio-encoder"
        thread.start()
    }

    /// Seconds the thread spent encoding (final once `finish()` returned).
    var busySeconds: Double { condition.lock(); defer { condition.unlock() }; return busy }
    /// Seconds the caller waited for room in the queue or for the final flush.
    var waitSeconds: Double { condition.lock(); defer { condition.unlock() }; return wait }

    /// Queues a frame, waiting while the encoder is `capacity` frames behind.
    func send(_ frame: Frame) throws { try put(.frame(frame)) }

    /// Packets encoded so far, in order, not yet taken.
    func takePackets() throws -> [Packet] {
        condition.lock()
        defer { condition.unlock() }
        if let error { throw error }
        let out = ready
        ready.removeAll(keepingCapacity: true)
        return out
    }

    /// Flushes the encoder and waits for the thread to end; returns the last packets.
    func finish() throws -> [Packet] {
        try put(.flush)
        condition.lock()
        let t0 = monotonicSeconds()
        while !done { condition.wait() }
        wait += monotonicSeconds() - t0
        condition.unlock()
        return try takePackets()
    }

    /// Stops the thread without flushing (an abandoned stitch); never waits for room.
    func cancel() {
        condition.lock()
        items.append(.cancel)
        condition.broadcast()
        condition.unlock()
    }

    private func put(_ item: Item) throws {
        condition.lock()
        defer { condition.unlock() }
        if items.count >= capacity {
            let t0 = monotonicSeconds()
            while items.count >= capacity && error == nil && !done { condition.wait() }
            wait += monotonicSeconds() - t0
        }
        if let error { throw error }
        guard !done else { throw MediaError.unsupported("the audio encoder has stopped") }
        items.append(item)
        condition.broadcast()
    }

    private func run() {
        while true {
            condition.lock()
            while items.isEmpty { condition.wait() }
            let item = items.removeFirst()   // at most `capacity` items
            condition.broadcast()
            condition.unlock()
            let t0 = monotonicSeconds()
            var out: [Packet] = []
            var failure: Error?
            var stop = false
            switch item {
            case .frame(let f):
                do { try encoder.send(f); try drain(into: &out) } catch { failure = error }
            case .flush:
                do { try encoder.send(nil); try drain(into: &out) } catch { failure = error }
                stop = true
            case .cancel:
                stop = true
            }
            condition.lock()
            busy += monotonicSeconds() - t0
            ready.append(contentsOf: out)
            if let failure, error == nil { error = failure }
            if failure != nil || stop { done = true }
            condition.broadcast()
            let finished = done
            condition.unlock()
            if finished { return }
        }
    }

    private func drain(into out: inout [Packet]) throws {
        let packet = try Packet()
        while try encoder.receive(into: packet) == .produced { out.append(try packet.take()) }
    }
}

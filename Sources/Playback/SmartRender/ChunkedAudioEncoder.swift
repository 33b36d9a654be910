import Foundation
import Media
import Threads
import Timing

/// The AAC encoding of a smart-rendered stitch, split into chunks encoded in parallel. With the
/// content copied and the ads taken from the transcode cache, encoding the audio is most of what
/// is left to do (about 80% of a warm stitch's CPU time, FFmpeg's AAC encoder at some 12 ms per
/// second of stereo here), so it runs beside the frame loop, on every core.
///
/// The audio is still decoded, spliced to the sample and framed once, in order; chunk `k` owns
/// the encoder frames `k·C ..< (k+1)·C` and is encoded by its own encoder fed from `leadIn`
/// frames before to `lookahead` frames after them, keeping only the packets whose timestamps
/// fall in its own range. Every packet kept was encoded with the signal on both sides of it, as
/// one encoder would have (the MDCT of a packet spans its neighbours' samples): the decoded audio
/// is continuous across chunk joins, and its timing is the single encoder's to the sample (the
/// same packet timestamps, one packet per 1024 samples, priming only at the start). The lead-in
/// is long because FFmpeg's AAC rate control takes some 200 frames (4 s) to settle from a fresh
/// start: with 8 frames a chunk's first seconds of pink noise came out 1.8 dB worse; with 192
/// the chunked encode is as good as one long one (measured on pink noise and music, decoded,
/// per 1024-sample block). The bits differ from one long encode's only as two encodes of the
/// same signal do; `ChunkedAudioEncoderTests` decodes it and compares it with the source.
///
/// Packets copied from a source (`reserveCopy`, `sendCopied`: a content run whose own AAC packets
/// fit the output's grid, `AudioCopyPlan`) take the place of encoded ones: the chunks end where a
/// copied run begins and start again where it ends, with the same lead-in (the frames of the
/// copied run are still sent, so the encoder starting after it hears the signal before it), and
/// nothing inside the run is encoded.
///
/// Frames come in through `send`; the caller waits when `workers` chunks are waiting or
/// running. Packets come back in order through `takePackets()`, for the caller to mux. The first
/// error is raised on the next call.
final class ChunkedAudioEncoder: @unchecked Sendable {
    // @unchecked Sendable: a C owner (an AAC encoder per chunk, made by `makeEncoder` on the
    // workers); the producer's fields are a `LoopBound` of the caller's loop; everything shared is
    // in `shared`, under its lock. A job's frames are clones used only by the worker running it.
    private struct Job {
        let index: Int
        let frames: [Frame]
        /// Packet timestamps (samples) this chunk keeps: `lower ..< upper` (nil: no lower / upper bound).
        let lower: Int64?
        let upper: Int64?
    }

    /// Makes one encoder (each chunk gets its own, with identical settings).
    private let makeEncoder: () throws -> Encoder
    private let chunkFrames: Int
    private let leadIn: Int
    private let lookahead: Int
    private let maxQueued: Int
    private let frameSize: Int64

    /// The producer's side: what the caller's loop alone touches. Packet numbers `u` are pts /
    /// frame size (`-1`: the priming packet); frame `i` is the `i`-th frame sent.
    private struct Producer {
        var pending: [Frame] = []     // frames from the next job's first input frame on
        var pendingFirst = 0          // stream frame number of pending[0]
        var nextPacket = -1           // the first packet not yet given to a job or a copied run
        var nextIndex = 0             // the next result's number (results are taken in this order)
        var count = 0                 // frames sent
        var reserved: [Reservation] = []   // copied runs not yet complete, in order
        var copiedCount = 0           // packets placed from copied runs
        var afterCopy = false         // the next job starts where a copied run (or a run's interior) ended
        var seamEnds: [Int] = []      // packets a seam job ends at (a run's interior begins)
        var seamStarts: [Int] = []    // packets a seam job starts at (a run's interior ends)
    }
    /// A copied run: output packets `range`, those sent and not yet placed (`packets`, from
    /// `range.lowerBound + placed` on).
    private struct Reservation {
        var range: Range<Int>
        var packets: [Packet] = []
        var placed = 0
        var sent: Int { placed + packets.count }
    }
    /// The shortest lead-in of a seam job.
    static let seamLeadIn = 32
    private let producer: LoopBound<Producer>
    private var pending: [Frame] { get { producer.value.pending } _modify { yield &producer.value.pending } }
    private var pendingFirst: Int { get { producer.value.pendingFirst } _modify { yield &producer.value.pendingFirst } }
    private var nextPacket: Int { get { producer.value.nextPacket } _modify { yield &producer.value.nextPacket } }
    private var count: Int { get { producer.value.count } _modify { yield &producer.value.count } }

    /// What the caller and the workers share.
    private struct Shared {
        var jobs: [Job] = []
        var results: [Int: [Packet]] = [:]   // finished chunks not yet taken
        var inFlight = 0              // chunks being encoded
        var nextResult = 0
        var error: Error?
        var stopping = false
        var busy: Double = 0
        var wait: Double = 0
    }
    private let shared = LockedCondition(Shared())

    /// Starts `workers` threads. `frameSize` is the encoder's frame size (samples per packet);
    /// `chunkFrames` frames per chunk, encoded with `leadIn` frames before and `lookahead` after.
    init(frameSize: Int, workers: Int = ChunkedAudioEncoder.workers(threads: 0), chunkFrames: Int = 1024, leadIn: Int = 192,
         lookahead: Int = 8, owner: ThreadOwner = ThreadOwner(name: "a chunked AAC encoder's producer"),
         makeEncoder: @escaping () throws -> Encoder) {
        precondition(chunkFrames > 0 && leadIn > 0 && lookahead > 0 && workers > 0)
        producer = LoopBound(Producer(), owner: owner, name: "the frames not encoded yet")
        self.makeEncoder = makeEncoder
        self.chunkFrames = chunkFrames
        self.leadIn = leadIn
        self.lookahead = lookahead
        self.frameSize = Int64(frameSize)
        maxQueued = workers
        for i in 0..<workers {
            let thread = Thread { [self] in work() }
            thread.name = "interlude-aac-\(i)"
            thread.start()
        }
    }

    /// Workers for an encoder setting of `threads` (`EncoderSettings.threads`): that many, or
    /// for 0 one per CPU the process may use; at most four.
    static func workers(threads: Int) -> Int { min(4, threads > 0 ? threads : allowedCPUCount()) }

    /// Seconds the workers spent encoding (final once `finish()` returned).
    var busySeconds: Double { shared.withLock { $0.busy } }
    /// Seconds the caller waited for a free slot (not counting `finish()`, which its caller times).
    var waitSeconds: Double { shared.withLock { $0.wait } }

    /// Adds the next encoder frame (every frame but the last has `frameSize` samples, stamped with
    /// its first sample's number).
    func send(_ frame: Frame) throws {
        if count >= max(0, nextPacket - leadIn) {   // a frame inside a copied run, before the next job's lead-in, is not kept
            if pending.isEmpty { pendingFirst = count }
            pending.append(frame)
        }
        count += 1
        try advance(last: false)
    }

    /// Packets copied so far in place of encoded ones.
    var copiedPackets: Int { producer.value.copiedCount }

    /// Reserves output packets `packets` (numbers `u`, pts `u·frameSize`) for packets sent with
    /// `sendCopied`; false when a job already covers part of them (the caller then lets them be
    /// encoded). Runs are reserved in order and never overlap.
    func reserveCopy(_ packets: Range<Int>) -> Bool {
        guard !packets.isEmpty, packets.lowerBound >= max(0, nextPacket),
              packets.lowerBound >= producer.value.reserved.last?.range.upperBound ?? 0 else { return false }
        producer.value.reserved.append(Reservation(range: packets))
        return true
    }

    /// Ends a job at packet `u`, as a seam job (where the interior of a run kept in the transcode
    /// cache begins: the boundary a later stitch copying that interior has, so both encode the
    /// same jobs around it and give the same bytes). Ignored when a job covers `u` already.
    func seamEnd(at u: Int) {
        guard u > nextPacket else { return }
        producer.value.seamEnds.append(u)
    }

    /// Starts a seam job at packet `u` (where the interior of a run kept in the cache ends).
    func seamStart(at u: Int) {
        guard u >= nextPacket else { return }
        producer.value.seamStarts.append(u)
    }

    /// Whether a reserved run ends after packet `u` (a run reserved from there on already).
    func hasReservation(endingAfter u: Int) -> Bool { (producer.value.reserved.last?.range.upperBound ?? Int.min) > u }

    /// Adds the next packets of the reserved run that begins at packet `run`, in order (their
    /// timestamps are set here); no more than it reserved.
    func sendCopied(_ packets: [Packet], run: Int) throws {
        guard let k = producer.value.reserved.firstIndex(where: { $0.range.lowerBound == run }),
              producer.value.reserved[k].sent + packets.count <= producer.value.reserved[k].range.count else {
            throw MediaError.unsupported("copied audio packets outside a reserved run")
        }
        producer.value.reserved[k].packets += packets
        try advance(last: false)
    }

    /// Ends the reserved run that begins at packet `run` after the packets sent for it so far (the
    /// rest is encoded). Later runs stay reserved.
    func endCopy(run: Int) throws {
        guard let k = producer.value.reserved.firstIndex(where: { $0.range.lowerBound == run }) else { return }
        let r = producer.value.reserved[k]
        producer.value.reserved[k].range = run..<(run + r.sent)
        if r.sent == 0 { producer.value.reserved.remove(at: k) }
        try advance(last: false)
    }

    /// Encodes what is left and waits for every chunk; returns the packets not yet taken.
    func finish() throws -> [Packet] {
        // a run whose packets did not all come is cut where they stop; one the audio never
        // reached (there is no frame after it to encode around it) is dropped
        for r in producer.value.reserved { try endCopy(run: r.range.lowerBound) }
        producer.value.reserved.removeAll { $0.range.lowerBound >= count && nextPacket < $0.range.lowerBound }
        try advance(last: true)
        shared.holding { held in
            held.wait { ($0.jobs.isEmpty && $0.inFlight == 0) || $0.error != nil }
            held.value.stopping = true
            held.broadcast()
        }
        return try takePackets()
    }

    /// Gives out every job and copied run the frames and packets so far allow: jobs of up to
    /// `chunkFrames` packets ending at the next multiple of `chunkFrames` or where a copied run
    /// begins, each once `lookahead` frames after it are here; `last`: the rest, to the end.
    private func advance(last: Bool) throws {
        while true {
            if let r = producer.value.reserved.first, nextPacket >= r.range.lowerBound {
                let n = min(r.packets.count, r.range.upperBound - nextPacket)
                if n > 0 {
                    let batch = Array(r.packets.prefix(n))
                    producer.value.reserved[0].packets.removeFirst(n)
                    producer.value.reserved[0].placed += n
                    for (k, p) in batch.enumerated() {
                        let pts = Int64(nextPacket + k) * frameSize
                        p.setTimestamps(pts: pts, dts: pts)
                        p.setDuration(frameSize)
                    }
                    let index = producer.value.nextIndex
                    producer.value.nextIndex += 1
                    producer.value.copiedCount += n
                    shared.withLock { $0.results[index] = batch }
                    nextPacket += n
                }
                if nextPacket == r.range.upperBound {
                    producer.value.reserved.removeFirst()
                    producer.value.afterCopy = true
                    continue
                }
                break
            }
            let boundary = (max(nextPacket, 0) / chunkFrames + 1) * chunkFrames
            let split = (producer.value.seamEnds + producer.value.seamStarts).filter { $0 > nextPacket }.min()
            let end = min(boundary, producer.value.reserved.first?.range.lowerBound ?? Int.max, split ?? Int.max)
            let beforeCopy = end == producer.value.reserved.first?.range.lowerBound || producer.value.seamEnds.contains(end)
            if count >= end + lookahead || (last && end != boundary && count > end) {
                try submit(packets: nextPacket..<end, frames: min(count, end + lookahead), last: false,
                           seam: beforeCopy || producer.value.afterCopy)
                producer.value.afterCopy = producer.value.seamStarts.contains(end)
                producer.value.seamEnds.removeAll { $0 <= end }
                producer.value.seamStarts.removeAll { $0 < end }
                continue
            }
            if last, producer.value.reserved.isEmpty, count > max(0, nextPacket) {
                try submit(packets: nextPacket..<Int.max, frames: count, last: true, seam: producer.value.afterCopy)
            }
            break
        }
        // keep only what the next job reads: from `leadIn` frames before its first packet
        let keepFrom = max(0, nextPacket - leadIn)   // (a seam job reads less)
        if keepFrom > pendingFirst {
            pending.removeFirst(min(pending.count, keepFrom - pendingFirst))
            pendingFirst = keepFrom
        }
    }

    /// Packets of the chunks finished so far, in order, not yet taken.
    func takePackets() throws -> [Packet] {
        try shared.withLock { s throws in
            if let error = s.error { throw error }
            var out: [Packet] = []
            while let r = s.results.removeValue(forKey: s.nextResult) {
                out += r
                s.nextResult += 1
            }
            return out
        }
    }

    /// Stops the workers without encoding what is queued (an abandoned stitch); never waits.
    func cancel() {
        shared.holding { held in
            held.value.stopping = true
            held.value.jobs.removeAll()
            held.broadcast()
        }
    }

    /// Submits a job keeping packets `packets` (upper bound open when `last`), fed the frames from
    /// `leadIn` before its first packet up to frame `frames` (exclusive).
    /// A `seam` job, between copied runs or next to one, is short: it gets a lead-in of four
    /// frames per packet it keeps, at least `seamLeadIn` and at most `leadIn` (encoding 192 frames
    /// to keep a few would cost more than the copying saves; the rate control has less time to
    /// settle, measured at the seams: `SmartAudioCopyTests`).
    private func submit(packets: Range<Int>, frames end: Int, last: Bool, seam: Bool = false) throws {
        let kept = min(end, packets.upperBound) - max(0, packets.lowerBound)
        let lead = seam ? min(leadIn, max(Self.seamLeadIn, 4 * kept)) : leadIn
        producer.value.afterCopy = false
        let first = max(0, packets.lowerBound - lead)
        let frames = try pending[(first - pendingFirst)..<(end - pendingFirst)].map { try $0.clone() }
        let job = Job(index: producer.value.nextIndex, frames: frames,
                      lower: packets.lowerBound < 0 ? nil : Int64(packets.lowerBound) * frameSize,
                      upper: last ? nil : Int64(packets.upperBound) * frameSize)
        producer.value.nextIndex += 1
        nextPacket = last ? end : packets.upperBound
        try shared.holding { held throws in
            if held.value.jobs.count + held.value.inFlight >= maxQueued {
                let t0 = monotonicSeconds()
                held.wait { $0.jobs.count + $0.inFlight < maxQueued || $0.error != nil || $0.stopping }
                held.value.wait += monotonicSeconds() - t0
            }
            if let error = held.value.error { throw error }
            guard !held.value.stopping else { throw MediaError.unsupported("the audio encoder was stopped") }
            held.value.jobs.append(job)
            held.broadcast()
        }
    }

    private func work() {
        while true {
            let next = shared.holding { held -> Job? in
                held.wait { !$0.jobs.isEmpty || $0.stopping }
                if held.value.jobs.isEmpty || held.value.error != nil || held.value.stopping { return nil }
                held.value.inFlight += 1
                return held.value.jobs.removeFirst()
            }
            guard let job = next else { return }
            let t0 = monotonicSeconds()
            var failure: Error?
            var kept: [Packet] = []
            do { kept = try encode(job) } catch { failure = error }
            shared.holding { held in
                held.value.inFlight -= 1
                held.value.busy += monotonicSeconds() - t0
                if let failure { if held.value.error == nil { held.value.error = failure } } else { held.value.results[job.index] = kept }
                held.broadcast()
            }
        }
    }

    private func encode(_ job: Job) throws -> [Packet] {
        let encoder = try makeEncoder()
        let packet = try Packet()
        var kept: [Packet] = []
        func drain() throws {
            while try encoder.receive(into: packet) == .produced {
                guard let pts = packet.ptsTicks else { throw MediaError.unsupported("the AAC encoder gave a packet without a timestamp") }
                if let lower = job.lower, pts < lower { continue }
                if let upper = job.upper, pts >= upper { continue }
                kept.append(try packet.take())
            }
        }
        for f in job.frames { try encoder.send(f); try drain() }
        try encoder.send(nil)
        try drain()
        return kept
    }
}

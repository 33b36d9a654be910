import Media

/// The runs of a smart-rendered stitch's audio, each one source's samples at one shift
/// (`SmartOutput.audioSource`): records the AAC packets encoded inside each run for the transcode
/// cache (`AudioRunCache`), and for a run whose source and phase were encoded before, reserves the
/// packets the cache holds and hands them to the encoder in place of encoding them.
///
/// Only packets whose whole window lies inside the run, `margin` packets from each join (its
/// interior), are kept and copied. A run encoded here has its interior's AAC jobs begin and end
/// exactly where a stitch copying it begins and ends copying (`ChunkedAudioEncoder.seamEnd`,
/// `seamStart`), so the jobs around each join are the same in both and a warm stitch of the same
/// schedule gives the cold one's bytes. A cached packet is handed over only once the samples of
/// its window and `margin + edgeSearch` packets after it have been presented, so a run that stops
/// early (an ad skipped) never gets a packet past its end.
final class AudioRunReuse {
    private let cache: AudioRunCache
    private let encoder: ChunkedAudioEncoder
    private let profile: String
    private let frameSize: Int64
    private let margin = ContentAudioCopy.margin
    private let edgeSearch = Int64(ContentAudioCopy.edgeSearch)

    private struct Run {
        var key: String?
        var shift: Int64
        var start: Int64
        var end: Int64?
        var recorded: [Int64: [UInt8]] = [:]   // by source sample of the window's start
    }
    private var runs: [Run] = []
    /// The current run's cached packets being handed over: packets `next ..< limit`.
    private var reuse: (packets: [Int64: [UInt8]], lo: Int64, next: Int64, limit: Int64)?
    /// Packets handed over from the cache in all.
    private(set) var reused = 0

    init(cache: AudioRunCache, encoder: ChunkedAudioEncoder, profile: String, frameSize: Int) {
        self.cache = cache
        self.encoder = encoder
        self.profile = profile
        self.frameSize = Int64(frameSize)
    }

    /// The audio from stream sample `start` on is `identity`'s (nil: not to be cached) at stream
    /// sample = source sample + `shift`. Closes the run before it there.
    func begin(identity: String?, shift: Int64, at start: Int64) throws {
        try close(at: start)
        let firstWhole = AudioCopyPlan.ceilDiv(start, frameSize)
        guard let identity, !encoder.hasReservation(endingAfter: Int(firstWhole)),   // the content's own packets copied
              let key = cache.key(identity: identity, profile: profile, phase: AudioCopyPlan.mod(shift, frameSize)) else {
            runs.append(Run(key: nil, shift: shift, start: start))
            return
        }
        runs.append(Run(key: key, shift: shift, start: start))
        // the run's interior, whose packets are kept: from `margin` packets after the join on
        let lo = firstWhole + margin
        let packets = cache.load(key)
        let has = { (u: Int64) in packets[u * self.frameSize - shift] != nil }
        var hi = lo
        while has(hi) { hi += 1 }
        if hi - lo > 2 * edgeSearch, encoder.reserveCopy(Int(lo)..<Int(hi)) {
            reuse = (packets, lo, lo, hi)
        } else {
            // encoded here: its interior's jobs begin where a stitch copying it would begin copying
            encoder.seamEnd(at: Int(lo))
        }
    }

    /// Hands over the cached packets whose windows, and `margin + edgeSearch` packets after them,
    /// have been presented (`presented` samples in all).
    func pump(presented: Int64) throws {
        try handOver(upTo: AudioCopyPlan.floorDiv(presented, frameSize) - 2 - margin - edgeSearch + 1)
    }

    /// Ends the current run at stream sample `end`: hands over the cached packets whose windows end
    /// `margin` packets before it and ends the reservation there; or, for a run encoded here, ends
    /// its interior's jobs there, where a stitch copying it would stop copying.
    func close(at end: Int64) throws {
        guard !runs.isEmpty, runs[runs.count - 1].end == nil else { return }
        runs[runs.count - 1].end = end
        let run = runs[runs.count - 1]
        let upper = AudioCopyPlan.floorDiv(end, frameSize) - 2 - margin + 1   // (u + 2 + margin)·F ≤ end
        guard let r = reuse else {
            if run.key != nil { encoder.seamStart(at: Int(max(upper, AudioCopyPlan.ceilDiv(run.start, frameSize) + margin))) }
            return
        }
        try handOver(upTo: min(r.limit, upper))
        try encoder.endCopy(run: Int(r.lo))
        reuse = nil
    }

    /// Hands over cached packets `next ..< upTo` (within the reservation).
    private func handOver(upTo: Int64) throws {
        guard var r = reuse, let shift = runs.last?.shift else { return }
        let to = min(upTo, r.limit)
        guard to > r.next else { return }
        var batch: [Packet] = []
        for u in r.next..<to { batch.append(try Packet(bytes: r.packets[u * frameSize - shift]!)) }
        r.next = to
        reuse = r
        reused += batch.count
        try encoder.sendCopied(batch, run: Int(r.lo))
    }

    /// Keeps the bytes of packets about to be muxed (pts in samples) for the runs they lie in.
    func record(_ packets: [Packet]) {
        guard runs.contains(where: { $0.key != nil }) else { return }
        for p in packets {
            guard let pts = p.ptsTicks else { continue }
            // the runs are in order; a packet belongs to at most one run's interior
            for i in runs.indices.reversed() where runs[i].key != nil {
                let r = runs[i]
                guard pts >= r.start + margin * frameSize else { continue }
                if let end = r.end, pts + (2 + margin) * frameSize > end { break }
                runs[i].recorded[pts - r.shift] = p.bytes
                break
            }
        }
    }

    /// Closes the last run at `end` and stores what each run recorded inside its interior.
    func finish(end: Int64) throws {
        try close(at: end)
        for r in runs {
            guard let key = r.key, let runEnd = r.end else { continue }
            let kept = r.recorded.filter { pos, _ in
                let pts = pos + r.shift
                return pts >= r.start + margin * frameSize && pts + (2 + margin) * frameSize <= runEnd
            }
            cache.merge(kept, key: key)
        }
        runs = []
    }
}

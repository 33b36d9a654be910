import Media
import Timing

/// The content's own AAC packets, copied into a smart-rendered stitch's audio track for each
/// content run that is in phase with the track's packet grid (`AudioCopyPlan`), so that only the
/// packets around each join are encoded. It applies when the content's audio is AAC-LC at the
/// output's rate and channel layout (`AACConfig.copyable`, checked by the output), its packets
/// are 1024 samples each with no gap from the first on, it reaches the stitch unchanged (no
/// loudness processing, no layer mixing sound) — otherwise its audio is encoded as before.
///
/// A run is reserved in the output when it begins, its packets handed over as the run's audio is
/// presented, and its ends moved inward to packets with long windows on both halves
/// (`AACConfig.isLongOnly`), so the encoded packet next to each end overlaps it as the content's
/// own encoder's neighbour did.
final class ContentAudioCopy {
    /// Packets kept encoded between a join and the first / after the last copied packet's window.
    static let margin: Int64 = 2
    /// How far an end of a run moves inward, at most, to a packet with long windows.
    static let edgeSearch = 8
    let config: [UInt8]
    private let frameSize: Int64 = 1024
    private let demuxer: Demuxer
    private let stream: Int
    private let scratch: Packet
    private var queued: [Packet] = []       // read, not yet used or skipped (pts order)
    private var lastPTS: Int64?
    private var grid: Int64?                // the first packet's pts
    private var broken = false              // a gap, an odd packet or a read error: no more copying
    /// The run in progress: output packets `next ..< end` still to hand over, source pts = u·F − shift.
    private var run: (start: Int64, next: Int64, end: Int64, shift: Int64)?
    /// Packets handed over in all.
    private(set) var copied = 0

    /// nil when the content's audio is not AAC at the output's rate and channel count, in a time
    /// base of one tick per sample.
    init?(url: String, output: OutputFormat) throws {
        let d = try Demuxer(url: url)
        guard let a = d.bestStream(.audio) else { return nil }
        let info = d.streams[a]
        guard info.codecName == "aac", info.sampleRate == output.sampleRate, info.channels == output.channels,
              d.timeBase(of: a) == Rational(1, Int64(output.sampleRate)) else { return nil }
        config = d.extradata(of: a)
        d.keepOnly([a])
        demuxer = d
        stream = a
        scratch = try Packet()
    }

    /// Begins a content run playing stream samples `start ..< end`, its audio read from `track`
    /// at stream sample + `offset`: reserves the packets it can copy on `surface`.
    func begin(start: Int64, end: Int64, track: AudioTrack, offset: Int64, on surface: RenderSurface) throws {
        run = nil
        guard !broken, let k = try track.sourceTickShift(), let first = try peek() ,
              let planned = AudioCopyPlan.packets(start: start, end: end, shift: k - offset, sourceGrid: first.ptsTicks!,
                                                  frameSize: frameSize, margin: Self.margin) else { return }
        let shift = k - offset
        // skip to the run's first packet, moved inward to one with long windows
        var lo = planned.lowerBound
        try skip(before: AudioCopyPlan.sourcePTS(ofPacket: lo, shift: shift, frameSize: frameSize))
        while lo < planned.upperBound, lo < planned.lowerBound + Int64(Self.edgeSearch) {
            guard let p = try peek(), p.ptsTicks == AudioCopyPlan.sourcePTS(ofPacket: lo, shift: shift, frameSize: frameSize) else { return }
            if AACConfig.isLongOnly(p.bytes) { break }
            queued.removeFirst()
            lo += 1
        }
        guard lo < planned.upperBound, let p = try peek(), AACConfig.isLongOnly(p.bytes),
              try surface.reserveCopiedAudio(start: lo * frameSize, count: Int(planned.upperBound - lo), config: config,
                                             track: track, offset: offset) else { return }
        run = (lo * frameSize, lo, planned.upperBound, shift)
    }

    /// Hands over the run's packets whose samples the surface has presented, keeping back the last
    /// `edgeSearch` for `finish`.
    func pump(_ surface: RenderSurface) throws {
        guard let r = run else { return }
        let upTo = min(r.end - Int64(Self.edgeSearch), AudioCopyPlan.floorDiv(surface.presentedSamples, frameSize))
        try handOver(upTo: upTo, on: surface)
    }

    /// Ends the run: hands over its packets up to the last one with long windows, and ends the
    /// reservation there.
    func finish(_ surface: RenderSurface) throws {
        guard let r = run else { return }
        var last = r.end - 1
        while last >= r.next {
            let pts = AudioCopyPlan.sourcePTS(ofPacket: last, shift: r.shift, frameSize: frameSize)
            guard let p = try packet(at: pts) else { last = r.next - 1; break }
            if AACConfig.isLongOnly(p.bytes) { break }
            if last <= r.end - Int64(Self.edgeSearch) { last = r.next - 1; break }
            last -= 1
        }
        try handOver(upTo: last + 1, on: surface)
        try surface.endCopiedAudio(run: r.start)
        run = nil
    }

    /// Hands over output packets `run.next ..< upTo`; ends the run where the source's packets stop.
    private func handOver(upTo: Int64, on surface: RenderSurface) throws {
        guard var r = run, upTo > r.next else { return }
        var batch: [Packet] = []
        while r.next < upTo {
            guard let p = try peek(), p.ptsTicks == AudioCopyPlan.sourcePTS(ofPacket: r.next, shift: r.shift, frameSize: frameSize) else {
                broken = true
                break
            }
            queued.removeFirst()
            batch.append(try Packet(bytes: p.bytes))
            r.next += 1
        }
        run = r
        copied += batch.count
        if !batch.isEmpty { try surface.presentCopiedAudio(batch, run: r.start) }
        if broken { try surface.endCopiedAudio(run: r.start); run = nil }
    }

    /// The queued or next packet whose pts is `pts`, skipping those before it (nil when none).
    private func packet(at pts: Int64) throws -> Packet? {
        try readUntil { $0 >= pts }
        return queued.first { $0.ptsTicks == pts }
    }

    /// Drops packets before `pts`.
    private func skip(before pts: Int64) throws {
        while let p = try peek(), p.ptsTicks! < pts { queued.removeFirst() }
    }

    private func peek() throws -> Packet? {
        if queued.isEmpty { try readOne() }
        return queued.first
    }

    /// Reads until a packet satisfies `done` (by pts) or the audio ends.
    private func readUntil(_ done: (Int64) -> Bool) throws {
        while !(queued.last.map { done($0.ptsTicks!) } ?? false) {
            let before = queued.count
            try readOne()
            if queued.count == before { return }
        }
    }

    /// Reads one audio packet into `queued`, checking that each follows the last by one frame.
    private func readOne() throws {
        guard !broken else { return }
        while true {
            let r: Demuxer.ReadResult
            do { r = try demuxer.read(into: scratch) } catch { broken = true; return }
            if r == .endOfFile { broken = true; return }
            guard scratch.streamIndex == stream else { continue }
            guard let pts = scratch.ptsTicks, scratch.durationTicks == frameSize,
                  lastPTS.map({ pts == $0 + frameSize }) ?? true else { broken = true; return }
            lastPTS = pts
            if grid == nil { grid = pts }
            queued.append(try scratch.take())
            return
        }
    }
}

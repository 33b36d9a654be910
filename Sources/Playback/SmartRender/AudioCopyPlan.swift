/// Which of a source's AAC packets a smart-rendered stitch can copy into its own AAC track for one
/// run of that source, keeping every join sample-exact: a pure rule, table-tested.
///
/// The output track's packets are on a fixed grid: packet `u` has pts `u·F` (F = 1024 samples;
/// `u = -1` is the encoder's priming) and decodes, by overlapping its MDCT window with its
/// neighbours', from the signal `u·F ..< (u+2)·F`. The source's run plays stream samples
/// `start ..< end`, its source sample `s` at stream sample `s + shift`. A source packet fits the
/// grid only when its own pts plus `shift` lands on a multiple of F: the phase of the run, set by
/// everything before it (an ad of `n` frames at 30 fps moves it by 1600·n samples), so a run can be
/// copied only when that phase is 0 — otherwise every packet of it is encoded, as before. Of a run
/// in phase, the packets copied are those whose whole window lies inside the run, `margin` packets
/// away from each join: the packets next to a join are encoded from the spliced signal, with the
/// source's own signal on the copied side, so the overlap of an encoded and a copied packet adds
/// the two halves of the same signal.
enum AudioCopyPlan {
    /// The output packet numbers `u` (pts `u·frameSize`) that copy source packets, or nil when
    /// none can. `sourceGrid` is any source packet's pts (all are `sourceGrid + k·frameSize`).
    static func packets(start: Int64, end: Int64, shift: Int64, sourceGrid: Int64, frameSize: Int64,
                        margin: Int64) -> Range<Int64>? {
        precondition(frameSize > 0 && margin >= 0)
        guard mod(sourceGrid + shift, frameSize) == 0 else { return nil }
        // first u with u·F ≥ start + margin·F; last u with (u+2)·F ≤ end − margin·F
        let lo = ceilDiv(start, frameSize) + margin
        let hi = floorDiv(end, frameSize) - margin - 1
        guard lo < hi else { return nil }
        return lo..<hi
    }

    /// Stream packet `u`'s source packet pts.
    static func sourcePTS(ofPacket u: Int64, shift: Int64, frameSize: Int64) -> Int64 { u * frameSize - shift }

    static func mod(_ a: Int64, _ m: Int64) -> Int64 { ((a % m) + m) % m }
    static func floorDiv(_ a: Int64, _ b: Int64) -> Int64 { (a - mod(a, b)) / b }
    static func ceilDiv(_ a: Int64, _ b: Int64) -> Int64 { -floorDiv(-a, b) }
}

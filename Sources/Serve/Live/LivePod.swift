import Timing

/// The ads of one live break for one viewer: the ad server's pod fitted to the break's length.
/// Ads go in pod order; an ad that does not fit in what is left is dropped and the next tried;
/// the time no ad fills is slate. With bumpers (`Bumpers`), the start bumper plays first and
/// the end bumper ends at the break's end, the ads in what is left between them. Pure.
public struct LivePod: Sendable, Hashable, Codable {
    /// One ad that plays: its index in the decided pod and its measured length (90 kHz ticks).
    public struct Slot: Sendable, Hashable, Codable {
        /// Index into the break's decided ads.
        public var ad: Int
        /// Its length, 90 kHz ticks.
        public var ticks: Int64
        /// Where it starts, ticks from the break's start.
        public var start: Int64
    }

    /// The ads that play, in order of their starts.
    public var slots: [Slot]
    /// The break's length it was fitted to (ticks).
    public var availTicks: Int64

    /// The ads' total length (ticks).
    public var adTicks: Int64 { slots.reduce(0) { $0 + $1.ticks } }

    /// Fits `ads` (their lengths in ticks, nil: not playable now — not in the store yet, failed)
    /// into `availTicks`. `startBumper` and `endBumper`: the indices of the bumpers among `ads`,
    /// if any: the end bumper is placed first (ending at the break's end), then the start
    /// bumper at the start, then the other ads after it as long as they fit before the end one.
    public static func fit(_ ads: [Int64?], availTicks: Int64, startBumper: Int? = nil, endBumper: Int? = nil) -> LivePod {
        let avail = max(0, availTicks)
        func length(_ i: Int?) -> Int64? { i.flatMap { ads.indices.contains($0) ? ads[$0] : nil }.flatMap { $0 > 0 ? $0 : nil } }
        var room = avail
        var end: Slot?
        if let e = endBumper, let t = length(e), t <= room { end = Slot(ad: e, ticks: t, start: avail - t); room -= t }
        var slots: [Slot] = []
        var used: Int64 = 0
        if let b = startBumper, let t = length(b), t <= room { slots.append(Slot(ad: b, ticks: t, start: 0)); used = t }
        for (i, t) in ads.enumerated() where i != startBumper && i != endBumper {
            guard let t, t > 0, used + t <= room else { continue }
            slots.append(Slot(ad: i, ticks: t, start: used))
            used += t
        }
        if let end { slots.append(end) }
        return LivePod(slots: slots, availTicks: avail)
    }

    /// Where `offset` ticks into the break falls: inside slot `i` at `within` ticks, or in slate
    /// at `within` ticks after the slot before it ended (the break's start when none).
    public func locate(_ offset: Int64) -> (slot: Int?, within: Int64) {
        var previousEnd: Int64 = 0
        for (i, s) in slots.enumerated() {
            if offset < s.start { return (nil, offset - previousEnd) }
            if offset < s.start + s.ticks { return (i, offset - s.start) }
            previousEnd = s.start + s.ticks
        }
        return (nil, offset - previousEnd)
    }

    /// Where the first slot after `offset` (in slate) starts, ticks from the break's start; nil
    /// when no slot follows.
    public func nextSlotStart(after offset: Int64) -> Int64? {
        slots.first { $0.start > offset }?.start
    }
}

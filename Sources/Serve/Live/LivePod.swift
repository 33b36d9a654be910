import Timing

/// The ads of one live break for one viewer: the ad server's pod fitted to the break's length.
/// Ads go in pod order; an ad that does not fit in what is left is dropped and the next tried;
/// the time no ad fills is slate. Pure.
public struct LivePod: Sendable, Hashable {
    /// One ad that plays: its index in the decided pod and its measured length (90 kHz ticks).
    public struct Slot: Sendable, Hashable {
        /// Index into the break's decided ads.
        public var ad: Int
        /// Its length, 90 kHz ticks.
        public var ticks: Int64
    }

    /// The ads that play, in order, from the break's start.
    public var slots: [Slot]
    /// The break's length it was fitted to (ticks).
    public var availTicks: Int64

    /// The ads' total length (ticks).
    public var adTicks: Int64 { slots.reduce(0) { $0 + $1.ticks } }

    /// Fits `ads` (their lengths in ticks, nil: not playable now — not in the store yet, failed)
    /// into `availTicks`.
    public static func fit(_ ads: [Int64?], availTicks: Int64) -> LivePod {
        var slots: [Slot] = []
        var used: Int64 = 0
        for (i, t) in ads.enumerated() {
            guard let t, t > 0, used + t <= availTicks else { continue }
            slots.append(Slot(ad: i, ticks: t))
            used += t
        }
        return LivePod(slots: slots, availTicks: max(0, availTicks))
    }

    /// Where `offset` ticks into the break falls: inside slot `i` at `within` ticks, or in the
    /// slate after the ads at `within` ticks into it.
    public func locate(_ offset: Int64) -> (slot: Int?, within: Int64) {
        var at: Int64 = 0
        for (i, s) in slots.enumerated() {
            if offset < at + s.ticks { return (i, offset - at) }
            at += s.ticks
        }
        return (nil, offset - at)
    }
}

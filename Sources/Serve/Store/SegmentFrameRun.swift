/// A rung's origin segments read in order as one run of frames (90 kHz ticks): each must start
/// with a keyframe, keep one constant frame period, and begin where the one before ended. What
/// both origin imports (`HLSImport`, `ProtectedCMAFImport`) check of every segment they keep.
struct SegmentFrameRun {
    /// `source` ("HLS source", "DASH source") and the rung's name, for the one-line refusals.
    let source: String, rung: String
    /// The frame period, once two pictures have shown it.
    private(set) var period: Int64?
    private var first: Int64?, next: Int64?

    init(source: String, rung: String) { self.source = source; self.rung = rung }

    /// Takes segment `index`'s pictures (`ticks` sorted by presentation; `keyFirst` whether its
    /// first in decode order is a keyframe): its frames `[start, end)` of the rung and the PTS of
    /// its first picture. Throws `StoreError` in one line when it does not continue the run.
    mutating func append(_ ticks: [Int64], keyFirst: Bool, index: Int) throws -> (frames: Range<Int>, firstPTS: Int64) {
        guard keyFirst, let lo = ticks.first else { throw StoreError.unsupported("\(source): \(rung) segment \(index) does not start with a keyframe") }
        if period == nil, ticks.count >= 2 { period = ticks[1] - ticks[0] }
        guard let step = period, step > 0, zip(ticks, ticks.dropFirst()).allSatisfy({ $1 - $0 == step }) else {
            throw StoreError.unsupported("\(source): \(rung): the frame rate is not constant")
        }
        if let n = next, n != lo { throw StoreError.unsupported("\(source): \(rung) segment \(index) does not follow the one before") }
        let origin = first ?? lo
        first = origin
        next = lo + Int64(ticks.count) * step
        let start = Int((lo - origin) / step)
        return (start..<(start + ticks.count), lo)
    }
}

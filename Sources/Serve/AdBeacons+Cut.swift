import Timing

extension AdBeacons {
    /// The beacons of `due` an ad still owes when `played` of its `length` played (a live break
    /// that ended inside it): those at an offset before the cut, and `complete` only when it
    /// played whole. An event at the cut itself is not owed: its frame is the content's.
    public static func owed(_ due: [Due], played: MediaTime, length: MediaTime) -> [Due] {
        guard played < length else { return due }
        return due.filter { $0.event != "complete" && $0.offset < played }
    }
}

import Foundation

extension MediaStore: LiveMedia {
    /// Removes the pieces made of live segments that left the channel's window.
    public func forgetLiveSegments(_ paths: [String]) { for p in paths { removeSegmentPieces(of: p) } }

    /// The rung of a stored live segment (`LiveSegmentProbe`).
    public func probeRung(ofSegment path: String) throws -> LiveRungInfo {
        guard let url = file(forSegment: path) else { throw StoreError.unsupported("no stored segment \(path)") }
        return LiveRungInfo(try LiveSegmentProbe.probe(url))
    }
}

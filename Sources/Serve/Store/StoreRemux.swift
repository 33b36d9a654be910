import Foundation
import Media
import Timing

/// A fetched origin segment made a store segment: remuxed to MPEG-TS by `FragmentRemux` (its
/// packets copied), its continuity counters made to follow the segment before it in the same
/// rendition, since each is muxed on its own (strict clients take a counter jump for lost
/// packets). The one step every origin that is not MPEG-TS byte for byte goes through: CMAF
/// (VOD and live) and DASH.
enum StoreRemux {
    /// Writes `output` from `segment` (fMP4 with `initialization`, or MPEG-TS) and `audio`'s time,
    /// timestamps moved by `shift`; `counters` are the last segment's on entry and this one's
    /// on return. `what` names the segment in the one-line error.
    static func segment(_ segment: URL, initialization: URL?, to output: URL, shift: MediaTime = .zero,
                        audio: FragmentRemux.AudioSpan? = nil, counters: inout [Int: UInt8], what: String) throws {
        do {
            try FragmentRemux.mpegTS(initialization: initialization, segment: segment, to: output, shift: shift, audio: audio)
        } catch {
            throw StoreError.unsupported("\(what): \(error)")
        }
        var bytes = [UInt8](try Data(contentsOf: output))
        TSContinuity.continuing(&bytes, after: counters)
        counters = TSContinuity.lastCounters(bytes)
        try Data(bytes).write(to: output)
    }
}

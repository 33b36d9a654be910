import Foundation
import Manifest
import Timing

/// The cues of one text segment in MP4 (`FragmentedTextTrack`: WebVTT or TTML samples), on the
/// track's media timeline in 90 kHz ticks: how a live DASH origin's text and a VOD DASH origin's
/// segmented text are read. A WebVTT sample's cues show for the sample (merged across samples);
/// a TTML sample is one document whose times count from the track's media time 0 (ISO/IEC
/// 14496-30; DASH players add no segment offset), read by `TTMLImport` and clipped to its sample.
enum MP4TextCues {
    /// The cues of media segment `data` of the text track `header` describes; `what` names it in errors.
    static func cues(_ data: Data, _ header: FragmentedTextTrack.Header, what: String) throws -> [WebVTT.Cue] {
        let samples = try FragmentedTextTrack.samples(data, header)
        func ticks(_ t: Int64) -> Int64 { MediaTime(value: t, timescale: header.timescale).mpegTicks }
        switch header.format {
        case .webVTT:
            return try FragmentedTextTrack.webVTTCues(samples).map { c in
                var c = c
                c.start = ticks(c.start); c.end = ticks(c.end)
                return c
            }
        case .ttml:
            var all: [WebVTT.Cue] = []
            for sample in samples where sample.duration > 0 {
                let from = ticks(sample.start), to = ticks(sample.start + sample.duration)
                for var c in try TTMLImport.cues(sample.bytes, what: "a TTML sample of \(what)") {
                    c.start = max(c.start, from); c.end = min(c.end, to)
                    if c.end > c.start { all.append(c) }
                }
            }
            return FragmentedTextTrack.merged(all)
        }
    }
}

// The human summary of a stitch job: what was written, each break and ad, errors, timings.
import Ads
import Foundation
import Interlude
import Playback
import Timing

/// The lines a stitch job's `Outcome.summary` holds.
enum StitchSummary {
    /// The summary of `r`: by media file when the app scheduled the breaks, by ad identity for an ad response.
    static func lines(_ r: StitchResult) -> [String] {
        r.schedule == .app ? appLines(r) : adResponseLines(r)
    }

    /// Media the app scheduled: each ad by its file.
    static func appLines(_ r: StitchResult) -> [String] {
        var lines: [String] = []
        lines.append("wrote \(r.output.uri): \(r.format), \(r.videoFrames) frames, \(r.output.duration.clockString)")
        lines.append("content \(r.content.uri): \(r.content.duration.clockString)\(origin(r))")
        for b in r.breaks {
            lines.append("  break \(b.id) at content \(b.contentTime.clockString) -> stream \(b.streamTime.clockString), \(b.ads.count) ad(s), \(b.duration.clockString)"
                         + (b.doubleBox.map { " (\($0); content went on)" } ?? ""))
            for ad in b.ads {
                lines.append("    ad \(ad.podPosition)/\(ad.totalAds) \(ad.mediaFile) at \(ad.streamTime.clockString), \(ad.duration.clockString)"
                             + (ad.transcodeCache == .hit ? " (from the transcode cache)" : ""))
                if let l = ad.loudness {
                    lines.append(String(format: "      loudness %.1f LUFS -> %.1f LUFS (gain %+.1f dB, true peak %.1f dBTP)",
                                        l.input, l.output ?? .nan, l.gain, l.outputTruePeak ?? .nan))
                }
            }
        }
        if let s = r.smartRendering {
            lines.append(s.used ? "  smart rendering: \(s.copiedFrames) content frames copied, \(s.encodedContentFrames) re-encoded"
                                    + (s.copiedAudioPackets.map { ", \($0) AAC packets copied" } ?? "")
                                    + (s.cachedAudioPackets.map { ", \($0) AAC packets from the transcode cache" } ?? "")
                                : "  smart rendering not used: \(s.reason ?? "")")
        }
        for e in r.issues { lines.append("  error \(e.code): \(e.message)") }
        for w in r.warnings { lines.append("  warning: \(w)") }
        lines.append(String(format: "took %.2fs (plan %.2fs; busy: decode %.2fs, encode %.2fs, mux %.2fs)", r.timings.total, r.timings.plan, r.timings.decode, r.timings.encode, r.timings.mux))
        return lines
    }

    /// Where the content's timeline starts when that is not its container's 0 (" from container
    /// time 27:46:39.978 (first-presented)"), else "".
    static func origin(_ r: StitchResult) -> String {
        r.content.timelineOrigin.map { " from container time \($0.containerTime.clockString) (\($0.rule.rawValue))" } ?? ""
    }

    /// An ad response: each ad by its identity, and the events and beacons recorded.
    static func adResponseLines(_ r: StitchResult) -> [String] {
        var lines: [String] = []
        lines.append("wrote \(r.output.uri): \(r.format), \(r.videoFrames) frames, \(r.output.duration.clockString)")
        lines.append("content \(r.content.uri): \(r.content.duration.clockString)\(origin(r)); cue points \(r.cuePoints.map { String(format: "%g", $0) }.joined(separator: ", "))")
        for b in r.playedBreaks {
            lines.append("  break \(b.id) at content \(b.contentTime.clockString) -> stream \(b.streamTime.clockString), \(b.ads.count) ad(s), \(b.duration.clockString)"
                         + (b.doubleBox.map { " (\($0); content went on)" } ?? ""))
            for a in b.ads {
                lines.append("    ad \(a.ad.adPodInfo.adPosition)/\(a.ad.adPodInfo.totalAds) \(a.ad.adId) \"\(a.ad.adTitle)\" (\(a.ad.adSystem)) at \(a.placement.streamTime.clockString), \(a.placement.duration.clockString), \(a.tracking.count) beacon(s)")
            }
        }
        for e in r.errors { lines.append("  error \(e.code): \(e.message)") }
        for w in r.warnings { lines.append("  warning: \(w)") }
        lines.append("\(r.events.count) ad events, \(r.beacons.count) beacons recorded (none fired)")
        lines.append(String(format: "took %.2fs (plan %.2fs; busy: decode %.2fs, encode %.2fs, mux %.2fs)", r.timings.total, r.timings.plan, r.timings.decode, r.timings.encode, r.timings.mux))
        return lines.map(Printable.escaped)   // ad ids, titles and systems are the documents' text
    }
}

import Foundation
import Media
import Timing

extension DoubleBoxLayer {
    /// Measures each double-box break's ads (one left out of its pod is reported in `issues`) and
    /// checks that content goes on for the whole break and that no other break starts inside it.
    /// `boxes` are in the order of the double-box breaks in `breaks`.
    public static func configure(_ boxes: [DoubleBoxLayer], breaks: [AdBreakRequest], format: OutputFormat, contentDuration: MediaTime,
                          threads: Int, issues: inout [StitchIssue]) throws {
        let requests = breaks.filter { $0.doubleBox != nil }
        var ranges: [(id: String, from: MediaTime, to: MediaTime)] = []
        for (box, b) in zip(boxes, requests) {
            var media: [AdMedia] = []
            for url in b.ads {
                do { media.append(try AdMediaProbe.measure(url, threads: threads)) } catch {
                    issues.append(StitchIssue(rejection: error, url: url, breakId: b.id))
                }
            }
            box.configure(ads: media, format: format)
            let end = box.cue + box.plannedDuration
            guard end <= contentDuration else {
                throw StitchFailure.invalidOption("double-box break \(b.id) at \(box.cue.seconds) s lasts \(box.plannedDuration.seconds) s but the content ends at \(contentDuration.seconds) s: content must go on for the whole break")
            }
            ranges.append((b.id, box.cue, end))
        }
        for r in ranges {
            for other in breaks where other.id != r.id {
                if let at = other.position.contentTime, at >= r.from, at < r.to {
                    throw StitchFailure.invalidOption("break \(other.id) at \(at.seconds) s starts inside double-box break \(r.id) (\(r.from.seconds)-\(r.to.seconds) s of content)")
                }
            }
        }
    }

    /// The break as placed, and its entry added to `timeline` (a break that overlaps content);
    /// nil when it never started.
    public func placedBreak(in timeline: inout TimelineMap) -> PlacedBreak? {
        guard let p = placement, !p.ads.isEmpty else { return nil }
        let period = format.frameDuration
        let end = format.time(ofFrame: p.firstFrame + p.ads.reduce(0) { $0 + $1.frames })
        let placedAds = p.ads.enumerated().map { i, a in
            PlacedAd(mediaFile: a.media.url, streamTime: a.streamTime, duration: period * a.frames, mediaDuration: a.media.duration,
                     podPosition: i + 1, totalAds: p.ads.count, frames: a.frames, conformSeconds: 0)
        }
        timeline.breaks.append(.init(id: breakId, contentTime: p.contentTime, streamStart: p.streamTime, streamEnd: end, overlapsContent: true))
        timeline.breaks.sort { $0.streamStart < $1.streamStart }
        var b = PlacedBreak(id: breakId, position: p.contentTime == .zero ? .start : .time(cue), contentTime: p.contentTime,
                            resumeContentTime: timeline.contentTime(forStreamTime: end), streamTime: p.streamTime,
                            duration: end - p.streamTime, ads: placedAds)
        b.doubleBox = style
        return b
    }
}

extension DoubleBoxLayer {
    /// The break as packaged for an output's markers (HLS date ranges, MP4 chapters): each ad that
    /// showed, with the stream time it covered; nil when none did.
    public var packagedBreak: PackagedBreak? {
        guard let p = placement else { return nil }
        let period = format.frameDuration
        let ads = p.ads.filter { $0.frames > 0 }.map { a in
            PackagedAd(id: a.media.adID ?? (a.media.url as NSString).lastPathComponent, mediaFile: a.media.url,
                       start: a.streamTime, end: a.streamTime + period * a.frames)
        }
        guard let last = ads.last else { return nil }
        return PackagedBreak(id: breakId, start: p.streamTime, end: last.end, ads: ads, doubleBox: style)
    }
}

extension DoubleBoxLayer {
    /// The report's reason when a double box turned smart rendering off.
    public static let smartRenderingRefusal = "a double-box break draws on content frames (they are re-encoded)"
}

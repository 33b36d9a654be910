import Ads
import Foundation
import Timing

/// One ad of a session's break, as decided: the media to show and the beacons it owes.
public struct PlannedAd: Sendable, Hashable, Codable {
    /// The VAST ad id (or a made-up one, `ad-B-A`).
    public var id: String
    /// The chosen MediaFile's URL (absolute: http(s), or file for a local tag).
    public var mediaURL: String
    /// VAST `<Duration>` (what a slate fills when the ad is not ready); nil when not declared.
    public var declaredDuration: MediaTime?
    /// Impression URL templates.
    public var impressions: [URLTemplate]
    /// Error URL templates (`[ERRORCODE]`).
    public var errorURLs: [URLTemplate]
    /// Tracking URL templates by VAST event name (`start`, `firstQuartile`, …).
    public var tracking: [String: [URLTemplate]]
    /// Fields the client-side tracking JSON carries.
    public var title: String
    /// The ad system's name.
    public var adSystem: String
    /// The creative's id.
    public var creativeId: String
    /// The creative's sequence in the pod, 1-based.
    public var sequence: Int
    /// A bumper of the configuration (`Bumpers`), not an ad of the ad server: no beacons, never
    /// slate in its place, at most `Bumpers.longest`.
    public var isBumper = false
}

/// One break of a session: where (content time, as asked) and its ads in order.
public struct PlannedBreak: Sendable, Hashable, Codable {
    /// The VMAP breakId (or `break-N`).
    public var id: String
    /// Where: a pre-roll, a mid-roll at a content time (0 < cue < duration), or a post-roll.
    public var position: BreakCue
    /// The ads that can play, in pod order.
    public var ads: [PlannedAd]
}

/// Turns an `AdSchedule` into a session's breaks: places them on the content (VMAP offsets, or
/// the origin's cues for a plain VAST), merges breaks at one place into one pod, drops ads that
/// cannot play and breaks left empty. Pure.
public enum AdPlanner {
    /// The breaks, in timeline order. A VMAP's breaks go at their offsets; a plain VAST's ads go
    /// at each of `originCues` (a pre-roll when there is none).
    public static func plan(_ schedule: AdSchedule, contentDuration: MediaTime, originCues: [MediaTime],
                            tagURL: URL?, allowLocalMedia: Bool) -> [PlannedBreak] {
        var placed: [Placed] = []
        for (bi, b) in schedule.breaks.enumerated() {
            let playable = b.ads.filter { $0.isLinear && $0.mediaFile != nil }
            guard !playable.isEmpty else { continue }
            let id = b.id ?? "break-\(bi + 1)"
            if schedule.kind == .vast && !originCues.isEmpty {
                for (ci, cue) in originCues.enumerated() { placed.append(Placed(position: position(cue, contentDuration), id: "\(id)-cue\(ci + 1)", ads: playable)) }
                continue
            }
            switch b.cue {
            case .postroll?: placed.append(Placed(position: .postroll, id: id, ads: playable))
            case let cue?: placed.append(Placed(position: position(cue.contentTime ?? .zero, contentDuration), id: id, ads: playable))
            case nil: continue
            }
        }
        return assemble(placed, tagURL: tagURL, allowLocalMedia: allowLocalMedia)
    }

    /// The breaks of one ad request per avail (MediaTailor's VOD with ad markers): `answers[i]`,
    /// the answer for origin cue `cues[i]` (nil: none), places its ads at that cue. Only a VAST
    /// answer fills its avail (a VMAP places breaks of its own: `plan` takes it for the session).
    public static func plan(perAvail answers: [AdSchedule?], cues: [MediaTime], contentDuration: MediaTime,
                            tagURL: URL?, allowLocalMedia: Bool) -> [PlannedBreak] {
        var placed: [Placed] = []
        for (ci, (cue, answer)) in zip(cues, answers).enumerated() {
            guard let answer, answer.kind == .vast else { continue }
            for (bi, b) in answer.breaks.enumerated() {
                let playable = b.ads.filter { $0.isLinear && $0.mediaFile != nil }
                guard !playable.isEmpty else { continue }
                placed.append(Placed(position: position(cue, contentDuration), id: "\(b.id ?? "break-\(bi + 1)")-cue\(ci + 1)", ads: playable))
            }
        }
        return assemble(placed, tagURL: tagURL, allowLocalMedia: allowLocalMedia)
    }

    /// Ads placed at a position, before they are planned.
    struct Placed {
        var position: BreakCue
        var id: String
        var ads: [ResolvedAd]
    }

    /// One pod per place, in timeline order, each ad planned (`planned`), breaks left empty dropped.
    static func assemble(_ placed: [Placed], tagURL: URL?, allowLocalMedia: Bool) -> [PlannedBreak] {
        var out: [PlannedBreak] = []
        for p in placed.sorted(by: { $0.position.playsBefore($1.position) }) {
            let ads = p.ads.enumerated().compactMap { planned($0.element, breakIndex: out.count, adIndex: $0.offset, tagURL: tagURL, allowLocalMedia: allowLocalMedia) }
            guard !ads.isEmpty else { continue }
            if let last = out.last, last.position == p.position {
                out[out.count - 1].ads += ads
            } else {
                out.append(PlannedBreak(id: p.id, position: p.position, ads: ads))
            }
        }
        for bi in out.indices { for ai in out[bi].ads.indices { out[bi].ads[ai].sequence = ai + 1 } }
        return out
    }

    static func position(_ cue: MediaTime, _ duration: MediaTime) -> BreakCue {
        if cue <= .zero { return .preroll }
        if cue >= duration { return .postroll }
        return .midroll(cue)
    }

    /// An ad with its media URL made absolute; nil when the media is a local file and the tag
    /// came from the network (or the URL is neither http(s) nor file).
    static func planned(_ ad: ResolvedAd, breakIndex: Int, adIndex: Int, tagURL: URL?, allowLocalMedia: Bool) -> PlannedAd? {
        guard let file = ad.mediaFile else { return nil }
        let raw = file.url.template.trimmingCharacters(in: .whitespacesAndNewlines)
        // The InLine came from the innermost wrapper's tag (wrappers are outermost first): its
        // relative media resolves there, and a local file is allowed only if every document on
        // the way was local too.
        let base = ad.wrappers.last.flatMap { URL(string: $0.tagURL) } ?? tagURL
        let local = allowLocalMedia && ad.wrappers.allSatisfy { URL(string: $0.tagURL)?.isFileURL ?? false }
        guard let url = URL(string: raw, relativeTo: base)?.absoluteURL ?? (local ? URL(fileURLWithPath: raw) : nil) else { return nil }
        let scheme = url.scheme?.lowercased() ?? ""
        guard scheme == "http" || scheme == "https" || (scheme == "file" && local) else { return nil }
        var tracking: [String: [URLTemplate]] = [:]
        for (event, urls) in ad.trackingByEvent { tracking[event, default: []] += urls }
        return PlannedAd(id: ad.id ?? "ad-\(breakIndex + 1)-\(adIndex + 1)", mediaURL: scheme == "file" ? url.path : url.absoluteString,
                         declaredDuration: ad.duration, impressions: ad.impressions, errorURLs: ad.errorURLs, tracking: tracking,
                         title: ad.title ?? "", adSystem: ad.adSystem?.name ?? "", creativeId: ad.creativeId ?? "", sequence: adIndex + 1)
    }
}

// What `interlude inspect` prints: the schedule as JSON or as text for a person.
import Foundation
import Timing

/// Renders an `AdSchedule` for people (`text`) and programs (`json`). Lives in the library so the
/// CLI stays thin and the output is testable without spawning a process.
public enum ScheduleReport {
    /// The schedule as one JSON object: `cuePoints`, `breaks` (with `ads`), `errors`, `warnings`.
    public static func json(_ s: AdSchedule) -> JSONValue {
        .object([
            ("tag", .string(s.tag)),
            ("kind", .string(s.kind.rawValue)),
            ("cuePoints", .array(s.cuePoints.map { .number($0) })),
            ("breaks", .array(s.breaks.map(breakJSON))),
            ("errors", .array(s.errors.map(issueJSON))),
            ("warnings", .array(s.warnings.map(issueJSON))),
        ])
    }

    static func seconds(_ t: MediaTime?) -> JSONValue { t.map { .number($0.seconds) } ?? .null }

    static func breakJSON(_ b: ScheduledBreak) -> JSONValue {
        .object([
            ("id", .string(b.id)),
            ("timeOffset", b.cueSeconds.map { .number($0) } ?? .null),
            ("offset", .string(b.timeOffset.description)),
            ("podIndex", b.podIndex.map { .int($0) } ?? .null),
            ("breakTypes", .array(b.breakTypes.map { .string($0) })),
            ("adTagURI", .string(b.adTagURI)),
            ("ads", .array(b.ads.map(adJSON))),
            ("standaloneAds", .array(b.standaloneAds.map(adJSON))),
            ("tracking", trackingJSON(b.trackingEvents)),
        ])
    }

    static func trackingJSON(_ events: [TrackingEvent]) -> JSONValue {
        var order: [String] = []
        var map: [String: [JSONValue]] = [:]
        for t in events {
            if map[t.event] == nil { order.append(t.event) }
            map[t.event, default: []].append(.string(t.url.template))
        }
        return .object(order.map { ($0, .array(map[$0]!)) })
    }

    /// One ad as JSON.
    public static func adJSON(_ a: ResolvedAd) -> JSONValue {
        let progress: [JSONValue] = a.trackingEvents.compactMap { t -> JSONValue? in
            guard let o = t.offset else { return nil }
            return .object([("offset", .string(o.description)), ("url", .string(t.url.template))])
        }
        let media: JSONValue = a.mediaFile.map(mediaJSON) ?? .null
        let ids: [JSONValue] = a.universalAdIds.map { .string("\($0.registry) \($0.value)") }
        return .object([
            ("id", .string(a.id)),
            ("title", .string(a.title)),
            ("adSystem", .string(a.adSystem?.name)),
            ("sequence", a.sequence.map { .int($0) } ?? .null),
            ("adPosition", .int(a.adPosition)),
            ("duration", seconds(a.duration)),
            ("skipOffset", seconds(a.skipOffset)),
            ("creativeId", .string(a.creativeId)),
            ("universalAdIds", .array(ids)),
            ("adServingId", .string(a.adServingId)),
            ("mediaFile", .string(a.mediaFile?.url.template)),
            ("media", media),
            ("mediaReason", .string(a.mediaSelection.reason)),
            ("wrappers", .array(a.wrappers.map { .string($0.tagURL) })),
            ("wrapperAdIds", .array(a.wrapperAdIds.map { .string($0) })),
            ("impressions", .array(a.impressions.map { .string($0.template) })),
            ("errorURLs", .array(a.errorURLs.map { .string($0.template) })),
            ("tracking", trackingJSON(a.trackingEvents)),
            ("progress", .array(progress)),
            ("clickThrough", .string(a.clickThrough?.template)),
            ("clickTracking", .array(a.clickTracking.map { .string($0.template) })),
            ("uiHideable", a.uiHideable.map { .bool($0) } ?? .null),
        ])
    }

    static func mediaJSON(_ f: MediaFile) -> JSONValue {
        let width: JSONValue = f.width.map { .int($0) } ?? .null
        let height: JSONValue = f.height.map { .int($0) } ?? .null
        let bitrate: JSONValue = f.effectiveBitrate.map { .int($0) } ?? .null
        return .object([
            ("type", .string(f.type)), ("delivery", .string(f.delivery)), ("width", width), ("height", height),
            ("bitrate", bitrate), ("codec", .string(f.codec)), ("mezzanine", .bool(f.isMezzanine)),
        ])
    }

    static func issueJSON(_ i: AdIssue) -> JSONValue {
        var pairs: [(String, JSONValue)] = [("code", i.code.map { .int($0.rawValue) } ?? .null), ("message", .string(i.message))]
        if let a = i.adId { pairs.append(("adId", .string(a))) }
        if let b = i.breakId { pairs.append(("breakId", .string(b))) }
        pairs.append(("errorURLs", .array(i.errorURLs.map { .string($0.template) })))
        return .object(pairs)
    }

    /// The schedule as text for a person.
    public static func text(_ s: AdSchedule) -> String {
        var out = ""
        func line(_ l: String = "") { out += l + "\n" }
        line("\(s.kind == .vmap ? "VMAP" : "VAST") \(s.tag ?? "(response)")")
        line("cue points: " + (s.cuePoints.isEmpty ? "none" : s.cuePoints.map(format).joined(separator: ", ")))
        for b in s.breaks {
            line()
            let when: String
            switch b.cue {
            case .postroll?: when = "post-roll"
            case .preroll?: when = "pre-roll at 0 s"
            case .midroll(let c)?: when = "mid-roll at \(format(c.seconds)) s (\(c.clockString))"
            case nil: when = "not placed (\(b.timeOffset))"
            }
            line("break \(b.id ?? "-") — \(when), offset \(b.timeOffset), \(b.ads.count) ad(s)"
                 + (b.breakTypes == ["linear"] ? "" : ", types \(b.breakTypes.joined(separator: ","))"))
            if let t = b.adTagURI { line("  ad tag: \(t)") }
            let bt = b.trackingEvents.map(\.event)
            if !bt.isEmpty { line("  break tracking: " + Dictionary(grouping: bt, by: { $0 }).map { "\($0.key)×\($0.value.count)" }.sorted().joined(separator: ", ")) }
            for a in b.ads { adText(a, into: &out) }
            if !b.standaloneAds.isEmpty {
                line("  stand-alone (buffet): " + b.standaloneAds.map { $0.id ?? "?" }.joined(separator: ", "))
            }
        }
        let errors = s.errors, warnings = s.warnings
        if !errors.isEmpty {
            line()
            line("errors:")
            for e in errors { line("  [\(e.code.map(String.init(describing:)) ?? "-")] " + (e.adId.map { "ad \($0): " } ?? "") + e.message) }
        }
        if !warnings.isEmpty {
            line()
            line("warnings:")
            for w in warnings { line("  [\(w.code.map(String.init(describing:)) ?? "-")] " + (w.adId.map { "ad \($0): " } ?? "") + w.message) }
        }
        // titles, ids and URLs are the document's text: what a terminal would act on is escaped
        return out.split(separator: "\n", omittingEmptySubsequences: false).map { Printable.escaped(String($0)) }.joined(separator: "\n")
    }

    static func adText(_ a: ResolvedAd, into out: inout String) {
        func line(_ l: String) { out += l + "\n" }
        line("  \(a.adPosition). ad \(a.id ?? "-") \"\(a.title ?? "")\" from \(a.adSystem?.name ?? "?")"
             + (a.sequence.map { " (sequence \($0))" } ?? ""))
        line("     duration \(a.duration.map { $0.clockString } ?? "unknown"), "
             + (a.skipOffset.map { "skippable after \($0.clockString)" } ?? "not skippable")
             + (a.isLinear ? "" : ", non-linear"))
        if let m = a.mediaFile { line("     media: \(m.url.template)") } else { line("     media: none") }
        line("     why: \(a.mediaSelection.reason)")
        let counts = a.trackingByEvent.map { "\($0.event)×\($0.urls.count)" }.joined(separator: ", ")
        line("     beacons: \(a.impressions.count) impression(s), \(a.errorURLs.count) error URL(s), \(a.clickTracking.count) click tracker(s)")
        if !counts.isEmpty { line("     tracking: \(counts)") }
        for (i, w) in a.wrappers.enumerated() { line("     wrapper \(i + 1): ad \(w.adId.isEmpty ? "-" : w.adId) (\(w.adSystem)) -> \(w.tagURL)") }
    }

    static func format(_ d: Double) -> String {
        d == d.rounded() ? String(Int64(d)) : String(format: "%.3f", d)
    }
}

import Foundation
import Timing

/// What a VOD session plays, decided once, at its first playlist, for every variant at once: per
/// break, per ad, whether the ad plays, is left out, or is replaced by slate. Every playlist of
/// the session is built from it and never changes afterwards (RFC 8216 §6.2.1: a VOD playlist
/// cannot change), whatever the store learns later.
public struct SessionPlan: Sendable, Hashable, Codable {
    /// What one ad of a break does in the session.
    public enum Slot: Sendable, Hashable, Codable {
        /// It plays: it is in the store in every rendition.
        case play
        /// Slate plays for this long in its place (`--fill-with slate`).
        case slate(value: Int64, timescale: Int64)
        /// Left out: not transcoded yet when the session started (MediaTailor's VOD behaviour),
        /// failed, or too long to fill.
        case leftOut(reason: String)
    }

    /// `slots[b][a]`: ad `a` of break `b`.
    public var slots: [[Slot]]

    /// A plan.
    public init(slots: [[Slot]]) { self.slots = slots }

    /// The longest slate a VOD break is given for one ad: longer ones are left out (an ad
    /// declaring ten hours must not turn the session into an error).
    public static let longestSlate = MediaTime(seconds: 600)

    /// Decides `breaks`: an ad plays when `readiness` says it is ready in every rendition; one
    /// that is not is left out, or filled with slate for its declared duration when `fill` is
    /// `.slate` (up to `longestSlate`). `failed` hears each ad that failed (its Error URLs fire).
    public static func decide(_ breaks: [PlannedBreak], renditions: [Rendition], fill: BreakFill,
                              readiness: (PlannedAd, Rendition) -> AdReadiness,
                              failed: (Int, Int, Int, String) -> Void) -> SessionPlan {
        var slots: [[Slot]] = []
        for (bi, b) in breaks.enumerated() {
            var row: [Slot] = []
            for (ai, ad) in b.ads.enumerated() {
                var why = "not transcoded yet"
                var ready = !renditions.isEmpty
                var failure: (Int, String)?
                var tooLong = false
                // every rendition is asked (each not ready is queued), not only up to the first
                for r in renditions {
                    switch readiness(ad, r) {
                    case .ready(_, let d):
                        if ad.isBumper && d > Bumpers.longest { tooLong = true; ready = false }
                    case .pending: ready = false
                    case .failed(let code, let reason): ready = false; failure = failure ?? (code, reason)
                    }
                }
                if let (code, reason) = failure { why = "failed (\(code)): \(reason)"; failed(bi, ai, code, reason) }
                if ready { row.append(.play); continue }
                if tooLong { why = "a bumper is at most \(Int(Bumpers.longest.seconds)) s" }
                if fill == .slate, !ad.isBumper, let d = ad.declaredDuration, d > .zero {
                    if d <= longestSlate { row.append(.slate(value: d.value, timescale: d.timescale)); continue }
                    why += "; its declared \(Int(d.seconds)) s is over the longest slate of \(Int(longestSlate.seconds)) s"
                }
                row.append(.leftOut(reason: why))
            }
            slots.append(row)
        }
        return SessionPlan(slots: slots)
    }

    /// The ads that play, counted.
    public var playing: Int { slots.joined().filter { $0 == .play }.count }
    /// The ads left out, counted.
    public var leftOut: Int { slots.joined().filter { if case .leftOut = $0 { true } else { false } }.count }
}

import Timing

/// MediaTailor's avail suppression for live sessions: which breaks a viewer gets the channel's
/// own content for instead of ads, decided from where the origin's live edge was when the
/// viewer's session started. Pure.
///
/// - `behindLiveEdge(value)`: a break that starts on or behind `value` before the live edge is
///   not filled (0: no break begun by the session's start is filled). A break is suppressed
///   whole (MediaTailor: this mode always uses the full-avail policy).
/// - `afterLiveEdge(value, partial:)`: a break that starts from the live edge to `value` after it
///   is not filled; one already under way at the live edge is not filled either, unless
///   `partial` (MediaTailor's PARTIAL_AVAIL), where the viewer gets ads for what is left of it.
public enum AvailSuppression: Sendable, Hashable {
    /// Breaks begun on or behind this long before the live edge are left to the content.
    case behindLiveEdge(MediaTime)
    /// Breaks beginning before the live edge plus this long are left to the content; one under
    /// way at the live edge is filled for what is left when `partial`.
    case afterLiveEdge(MediaTime, partial: Bool)

    /// Whether a break starting at channel PTS `start` is left to the channel's content for a
    /// viewer whose session started when the origin's live edge was at `edge` (90 kHz ticks).
    public func suppresses(breakStart start: Int64, edge: Int64) -> Bool {
        switch self {
        case .behindLiveEdge(let value):
            return start <= edge - value.mpegTicks
        case .afterLiveEdge(let value, let partial):
            if start < edge { return !partial }
            return start < edge + value.mpegTicks
        }
    }

    /// `MODE[,VALUE[,FILL]]` as `--avail-suppression` takes it: MODE `off`, `behind-live-edge`
    /// or `after-live-edge`; VALUE `HH:MM:SS` or seconds (default 0); FILL `full` (default) or
    /// `partial` (after-live-edge only). nil for `off`; throws a one-line reason.
    public static func parse(_ text: String) throws(ServeConfig.ParseError) -> AvailSuppression? {
        let parts = text.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
        func bad(_ why: String) -> ServeConfig.ParseError {
            ServeConfig.ParseError(description: "--avail-suppression \(why), not '\(text.prefix(100))'")
        }
        guard (1...3).contains(parts.count) else { throw bad("is MODE[,VALUE[,FILL]]") }
        if parts[0] == "off" {
            guard parts.count == 1 else { throw bad("off takes no value") }
            return nil
        }
        var value = MediaTime.zero
        if parts.count >= 2 {
            guard let v = MediaTime(clock: parts[1]), v <= MediaTime(seconds: 86_400) else {
                throw bad("takes a VALUE of HH:MM:SS or seconds up to a day")
            }
            value = v
        }
        let fill = parts.count == 3 ? parts[2] : "full"
        guard fill == "full" || fill == "partial" else { throw bad("takes a FILL of full or partial") }
        switch parts[0] {
        case "behind-live-edge":
            guard fill == "full" else { throw bad("behind-live-edge always fills full avails only") }
            return .behindLiveEdge(value)
        case "after-live-edge":
            return .afterLiveEdge(value, partial: fill == "partial")
        default:
            throw bad("MODE is off, behind-live-edge or after-live-edge")
        }
    }
}

// `interlude play … --native-format FILE --native-break TIME=RESPONSE[@lbar]`: native ads on the
// player's surface. Parsing and printing only; the work is NativePlayerBreaks.
import Foundation
import Interlude
import Playback
import Timing

/// The native options of `interlude play`.
struct NativePlayOptions {
    var formats: [String] = []
    var breaks: [(position: CuePosition, response: String, layout: NativeBreak.Layout)] = []
    /// Ads that could not be loaded, for the summary.
    private(set) var issues: [StitchIssue] = []

    /// Takes `--native-format FILE` or `--native-break TIME=RESPONSE[@lbar]`.
    mutating func take(_ name: String, _ value: String) throws {
        if name == "--native-format" { formats.append(value) } else { breaks.append(try StitchOptions.parseNativeBreak(value)) }
    }

    /// Usage errors: a break without a format, a format without a break, a post-roll.
    func validate() throws {
        if !breaks.isEmpty && formats.isEmpty { throw UsageError("--native-break needs --native-format FILE") }
        if breaks.isEmpty && !formats.isEmpty { throw UsageError("--native-format given but no --native-break") }
        if breaks.contains(where: { $0.position == .end }) { throw UsageError("--native-break end: a player plays no native post-roll (use a time)") }
    }

    /// Loads the formats and responses and attaches the ads to `player`; nil when none were asked
    /// for. A response that cannot be used is left out (listed by `summary`); an unreadable format
    /// file throws.
    @MainActor mutating func attach(to player: Player) async throws -> NativePlayerBreaks? {
        guard !breaks.isEmpty else { return nil }
        var files: [NativeFormatFile] = []
        for path in formats { files.append(try NativeFormatFile.load(path: path)) }
        let (natives, failed) = await loadNativeResponses(breaks, formats: files, settings: NativeLoadSettings())
        issues = failed
        // as for VAST beacons: sent as they happen in real time, only listed as fast as possible
        for n in natives { n.ad.firesTrackersLive = player.clock == .realTime }
        let attached = NativePlayerBreaks(player: player, natives: natives)
        try await attached.attach()
        return attached
    }

    /// Summary lines: each native ad shown, those left out, warnings.
    @MainActor func summary(_ attached: NativePlayerBreaks?) -> [String] {
        guard let attached else { return [] }
        return nativeSummaryLines(attached.placements) + issues.map { "  error \($0.code): \($0.message)" }
            + attached.warnings.map { "  warning: \($0)" }
    }
}

// No fill: a plain VAST response with nothing a player can show, decided once for every path.

extension ResolvedAd {
    /// Whether a player can show the ad at all: a linear ad with a media file chosen, or a
    /// non-linear (overlay) ad. An ad without either failed (its issue says why).
    public var isPlayable: Bool { mediaFile != nil || (!isLinear && !nonLinears.isEmpty) }
}

/// Why an ad response has nothing to play: IMA reports it as an ad-loading error
/// (`adsLoader(_:failedWith:)`), so the app plays its content at once.
public struct NoFill: Sendable, Hashable {
    /// IMA's code: 1009 (VAST_EMPTY_RESPONSE) when the response itself held no ad, else the VAST
    /// code of the first problem that cost an ad (303 no ads after a wrapper, 301 a wrapper timed
    /// out or failed, 302 too many wrappers, 403 no supported media file, …).
    public var code: Int
    /// The issue behind it (its code is what `[ERRORCODE]` becomes in its Error URLs).
    public var issue: AdIssue
    /// One line for a person.
    public var message: String { issue.message }

    /// IMA's VAST_EMPTY_RESPONSE.
    public static let emptyResponseCode = 1009
}

extension AdSchedule {
    /// A plain VAST response (not ad rules) none of whose ads can play: why, or nil when there is
    /// something to play. A VMAP is never "no fill" as a whole: IMA reports its failed breaks one by
    /// one (AD_BREAK_FETCH_ERROR, LOG) while the content plays on.
    public var noFill: NoFill? {
        guard kind == .vast else { return nil }
        let playable = breaks.contains { b in (b.ads + b.standaloneAds).contains(where: \.isPlayable) }
        guard !playable else { return nil }
        let issue = errors.first ?? AdIssue(code: .noAdsAfterWrapper, message: "the VAST response has no playable ad")
        return NoFill(code: isEmptyResponse ? NoFill.emptyResponseCode : (issue.code?.rawValue ?? 900), issue: issue)
    }
}

/// How an ad was presented, as reported in the STARTED event's `presentation` data and in
/// `PlayedAd.presentation`.
public enum AdPresentation: String, Sendable, Equatable, CaseIterable {
    /// Full size, the normal way.
    case normal
    /// Inside the picture-in-picture window (a break reached during PiP).
    case pictureInPicture
}

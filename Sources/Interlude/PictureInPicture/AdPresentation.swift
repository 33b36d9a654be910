/// How an ad was presented, as reported in the STARTED event's `presentation` data and in
/// `PlayedAd.presentation`.
public enum AdPresentation: String, Sendable, Equatable, CaseIterable {
    /// Full size, the normal way.
    case normal
    /// Inside the picture-in-picture window (a break reached during PiP).
    case pictureInPicture
    /// Full size in a double-box break, the content going on in a window.
    case doubleBox
    /// In the window of a double-box break, over the content going on full size.
    case doubleBoxReverse
}

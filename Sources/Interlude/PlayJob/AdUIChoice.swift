// The ad UI a stitch or play job draws on ad frames: none, IMA's default, or an app's layout.
import Foundation

/// The ad UI a job (`StitchJob`, `PlayJob`) draws on the frames of VAST ads.
public enum AdUIChoice: Sendable {
    /// No ad UI at all.
    case none
    /// IMA's default UI (the default with VAST ads).
    case `default`
    /// `disableUi` with the app's UI from a JSON layout; ads that forbid hiding (UiHideable 0)
    /// keep the default UI.
    case layout(AdUILayout)

    /// Whether IMA's default UI is drawn on ads that keep it.
    public var drawsDefault: Bool { if case .none = self { return false } else { return true } }
    /// The custom renderer, if any.
    public var custom: (any AdUIRenderer)? { if case .layout(let l) = self { return l } else { return nil } }
    /// Whether `disableUi` is asked for.
    public var disablesUi: Bool { custom != nil }
}

import Draw
import Foundation
import Media

/// Which corner of an element its position names.
public enum AdUIAnchor: String, Sendable, Hashable, Codable, CaseIterable {
    /// The position is the element's top-left corner.
    case topLeft
    /// The position is the element's top-right corner.
    case topRight
    /// The position is the element's bottom-left corner.
    case bottomLeft
    /// The position is the element's bottom-right corner.
    case bottomRight
}

/// What clicking an element does in a live window (a hit area).
public enum AdUIAction: String, Sendable, Hashable, Codable {
    /// `AdsManager.skip()`.
    case skip
    /// `AdsManager.clicked()` (the click-through).
    case learnMore
}

/// How a text element looks: its pixel height (the font's em size), colours, and the box behind it.
public struct AdUITextStyle: Sendable, Hashable {
    /// Em size in pixels.
    public var pixelHeight: Int
    /// Text colour.
    public var color: DrawColor
    /// A box behind the text (a button), or nil for bare text.
    public var background: DrawColor?
    /// Pixels between the text and its box's edges.
    public var padding: Int
    /// DejaVu Sans Bold instead of DejaVu Sans.
    public var bold: Bool

    /// A style.
    public init(pixelHeight: Int, color: DrawColor = .white, background: DrawColor? = nil, padding: Int = 0, bold: Bool = false) {
        self.pixelHeight = pixelHeight; self.color = color; self.background = background
        self.padding = padding; self.bold = bold
    }
}

/// An image an ad UI draws, decoded once (`ImageDecoder`) and compared by identity, so the
/// layer converts it to a sprite once per size.
public final class AdUIImage: Hashable, Sendable {
    /// The decoded pixels.
    public let image: RGBAImage

    /// An image from decoded pixels.
    public init(_ image: RGBAImage) { self.image = image }

    /// An image decoded from PNG/JPEG/WebP/GIF/BMP bytes (at most 4 Mpixel).
    public convenience init(data: Data) throws { self.init(try ImageDecoder.decode(data, maxPixels: 4_194_304)) }

    /// Images are equal when they are the same object (their pixels are not compared).
    public static func == (a: AdUIImage, b: AdUIImage) -> Bool { a === b }
    /// Hashes the object's identity.
    public func hash(into h: inout Hasher) { h.combine(ObjectIdentifier(self)) }
}

/// One thing an ad UI draws on an ad frame, in output pixels.
public enum AdUIElement: Sendable, Hashable {
    /// One line of text whose box (text plus the style's padding) has its `anchor` corner at
    /// (x, y); `action` makes it a button in a live window.
    case text(String, x: Int, y: Int, anchor: AdUIAnchor, style: AdUITextStyle, action: AdUIAction?)
    /// A filled rectangle (blended by the colour's alpha).
    case box(Draw.PixelRect, color: DrawColor)
    /// An image scaled into a rectangle.
    case image(AdUIImage, Draw.PixelRect)
}

/// Draws an ad UI: called on every ad frame (on the frame-loop thread) with that frame's
/// context, returns what to draw. The layer turns the elements into sprites only when they
/// change (text changes once a second at most), so a renderer may simply rebuild its list.
public protocol AdUIRenderer: AnyObject, Sendable {
    /// The elements to draw on the ad frame described by `context`; empty for none.
    func elements(for context: AdUIContext) -> [AdUIElement]
}

/// IMA's ad UI elements that `AdsRenderingSettings.uiElements` can choose (as `IMAUiElementType`;
/// the skip button and "Learn more" cannot be hidden, as in IMA).
public enum UIElementType: Int, Sendable, Hashable, CaseIterable {
    /// "Ad" / "Ad 1 of 2".
    case adAttribution = 0
    /// The time left, "0:12".
    case countdown = 1
}

extension UIElementType {
    /// IMA's name `elements_AD_ATTRIBUTION`.
    public static let elements_AD_ATTRIBUTION = UIElementType.adAttribution
    /// IMA's name `elements_COUNTDOWN`.
    public static let elements_COUNTDOWN = UIElementType.countdown
}

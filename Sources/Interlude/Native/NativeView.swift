// The views of a native layout: what UIKit's UIView / UILabel / UIImageView are to the guide's app,
// reduced to rectangles a SurfaceLayer can draw on video frames.
import Draw
import Foundation
import Media

/// A decoded picture of a native ad (what `UIImage` is to the guide's code): 8-bit RGBA.
public typealias NativeImage = RGBAImage

/// A rectangle of a native layout, in output pixels, with children drawn over it in order
/// (UIKit's `UIView`, as far as a layout drawn into video needs). Main-actor code builds and
/// populates it; the layer that draws it takes a snapshot (`NativeLayoutSnapshot`).
@MainActor open class NativeView {
    /// Where it is, in its layout's pixels (children are placed in the same coordinates as their parent).
    public var frame: Draw.PixelRect
    /// The view's name in its template (an asset key, or a placeholder's name).
    public var name: String?
    /// A hidden view and its children are not drawn.
    public var isHidden = false
    /// Filled before the children are drawn (nil: transparent).
    public var backgroundColor: DrawColor?
    /// Children, bottom first.
    public private(set) var subviews: [NativeView] = []
    /// The parent.
    public private(set) weak var superview: NativeView?
    /// Whether taps reach its gesture recognizers.
    public var isUserInteractionEnabled = false
    /// Tap handlers (see `tap()`).
    public private(set) var gestureRecognizers: [TapGestureRecognizer] = []

    /// A view at `frame`.
    public init(frame: Draw.PixelRect = Draw.PixelRect(x: 0, y: 0, width: 0, height: 0)) { self.frame = frame }

    /// The view's own rectangle at the origin (UIKit's `bounds`).
    public var bounds: Draw.PixelRect { Draw.PixelRect(x: 0, y: 0, width: frame.width, height: frame.height) }

    /// Adds `view` on top of the children (removing it from its old parent).
    public func addSubview(_ view: NativeView) {
        view.removeFromSuperview()
        subviews.append(view)
        view.superview = self
    }

    /// Takes the view out of its parent.
    public func removeFromSuperview() {
        superview?.subviews.removeAll { $0 === self }
        superview = nil
    }

    /// Adds a tap handler.
    public func addGestureRecognizer(_ g: TapGestureRecognizer) { gestureRecognizers.append(g) }

    /// A tap on the view (what a viewer's touch would be): runs its tap handlers when interaction is enabled.
    /// Returns whether any ran.
    @discardableResult public func tap() -> Bool {
        guard isUserInteractionEnabled, !isHidden else { return false }
        for g in gestureRecognizers { g.action() }
        return !gestureRecognizers.isEmpty
    }

    /// The first view named `name` in this tree (itself included), depth first.
    public func view(named name: String) -> NativeView? {
        if self.name == name { return self }
        for v in subviews { if let found = v.view(named: name) { return found } }
        return nil
    }

    /// Takes the template's views as this view's children (what loading a nib does): the view
    /// gets the design size and background, and one subview per template view, named after it.
    public func load(_ template: NativeTemplate) {
        let root = template.makeView()
        frame = root.frame
        backgroundColor = root.backgroundColor
        for v in root.subviews { addSubview(v) }
    }

    /// The frame in the coordinates of the tree's root (children's frames are relative to their parent).
    public var frameInRoot: Draw.PixelRect {
        var r = frame
        var p = superview
        while let s = p { r.x += s.frame.x; r.y += s.frame.y; p = s.superview }
        return r
    }
}

/// A tap handler (UIKit's `UITapGestureRecognizer`, with a closure instead of a selector).
@MainActor public final class TapGestureRecognizer {
    let action: () -> Void
    /// A recognizer running `action` on each tap.
    public init(action: @escaping () -> Void) { self.action = action }
}

/// One line of text (UIKit's `UILabel`).
@MainActor public final class NativeLabel: NativeView {
    /// The text (nil or empty: nothing drawn).
    public var text: String?
    /// Its colour.
    public var textColor: DrawColor = .white
    /// Pixel height of the font.
    public var fontSize = 20
    /// Bold face.
    public var isBold = false
}

/// A picture scaled to fill its frame (UIKit's `UIImageView` with its default `scaleToFill`).
@MainActor public final class NativeImageView: NativeView {
    /// The picture (nil: nothing drawn).
    public var image: NativeImage?
    /// An image view showing `image`.
    public init(image: NativeImage?) {
        self.image = image
        super.init()
    }
    /// An empty image view at `frame`.
    public override init(frame: Draw.PixelRect = Draw.PixelRect(x: 0, y: 0, width: 0, height: 0)) { super.init(frame: frame) }
}

/// Where a native ad's video plays (GMA's `GADMediaView`): the ad's video frames (a full-frame
/// native break plays the video as the break's media) scaled into its frame.
@MainActor public final class MediaView: NativeView {
    /// The media shown.
    public var mediaContent: MediaContent?
    /// A media view of `mediaContent`.
    public init(mediaContent: MediaContent?) {
        self.mediaContent = mediaContent
        super.init()
    }
}

/// Where the content keeps playing, scaled, in an L-bar layout.
@MainActor public final class ContentWindowView: NativeView {}

extension CustomNativeAd {
    /// A view for the ad's video (GMA's `mediaView`), nil when the ad has none.
    @MainActor public var mediaView: MediaView? { mediaContent.hasVideoContent ? MediaView(mediaContent: mediaContent) : nil }
}

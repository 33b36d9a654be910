// A publisher's layout of a native format, from JSON: rectangles for asset keys, text styles, background.
import Ads
import Draw
import Foundation
import Timing

/// How a native format is laid out on the video (read from the format file's `template`, or
/// `lbar`, object): a design size, a background colour, a declared duration for formats without
/// video, and views in drawing order, each a rectangle named after an asset key:
///
/// ```json
/// {"width": 640, "height": 360, "background": "#1E2A38", "duration": 4,
///  "views": [{"name": "MainImage", "kind": "image", "x": 16, "y": 16, "width": 384, "height": 216},
///            {"name": "Headline", "kind": "text", "x": 416, "y": 24, "width": 208, "height": 40,
///             "size": 24, "color": "#FFFFFF", "bold": true}]}
/// ```
/// Kinds: `text` (a title or data asset), `image` (an image asset; the AdChoices key "3011" takes
/// the icon), `media` (the ad's video, else the image named by `fallback`), `content` (L-bar: the
/// content, scaled into the rectangle), `box` (a filled rectangle of `color`). The design is
/// scaled to the output size.
public struct NativeTemplate: Sendable, Equatable {
    /// One view of the template.
    package struct Element: Sendable, Equatable {
        /// The kinds of view.
        package enum Kind: String, Sendable, CaseIterable {
            /// A title or data asset's text (`size`, `color`, `bold`), shrunk or cut with an ellipsis to fit the width.
            case text
            /// An image asset, scaled into the rectangle (the AdChoices key "3011" takes the icon).
            case image
            /// The ad's video, else the image asset named by `fallback`.
            case media
            /// The content, scaled into the rectangle (an L-bar).
            case content
            /// A rectangle filled with `color`.
            case box
        }
        /// The asset key (or a name of the publisher's).
        package var name: String
        /// What it shows.
        package var kind: Kind
        /// Where, in design pixels.
        package var rect: Draw.PixelRect
        /// Text pixel height.
        package var size: Int
        /// Text colour, or box colour.
        package var color: DrawColor
        /// Bold text.
        package var bold: Bool
        /// For `media`: the image asset shown when the ad has no video (default `MainImage`).
        package var fallback: String?
    }
    /// Design width and height (the output is this scaled).
    public var width: Int, height: Int
    /// Background of the whole frame (or of the bars around the content, in an L-bar).
    public var background: DrawColor
    /// How long an ad of a format without video is shown (seconds, declared).
    public var duration: MediaTime?
    /// The views, bottom first.
    package var elements: [Element]

    /// A template.
    package init(width: Int, height: Int, background: DrawColor, duration: MediaTime?, elements: [Element]) {
        self.width = width; self.height = height; self.background = background; self.duration = duration; self.elements = elements
    }

    /// The template under `key` (`template` for full frame, `lbar` for an L-bar) of a format file;
    /// nil when the file has none. One-line errors.
    public static func parse(formatFile data: Data, key: String) -> Result<NativeTemplate?, NativeResponseError> {
        guard data.count <= 256 << 10, let root = try? JSONSerialization.jsonObject(with: data), let o = root as? [String: Any] else {
            return .failure(NativeResponseError("native format is not a JSON object of at most 256 KiB"))
        }
        guard let raw = o[key] else { return .success(nil) }
        return Result { try parseTemplate(raw, path: key) }.mapError { $0 as? NativeResponseError ?? NativeResponseError("\($0)") }
    }

    static func parseTemplate(_ raw: Any, path: String) throws -> NativeTemplate {
        guard let t = raw as? [String: Any] else { throw NativeResponseError("\(path) must be an object") }
        func int(_ v: Any?, _ p: String, _ range: ClosedRange<Int>, default d: Int? = nil) throws -> Int {
            guard let v else {
                if let d { return d }
                throw NativeResponseError("\(p) is missing")
            }
            guard let n = v as? NSNumber, !(v is String), let i = Int(exactly: n.doubleValue), range.contains(i) else {
                throw NativeResponseError("\(p) must be an integer from \(range.lowerBound) to \(range.upperBound)")
            }
            return i
        }
        func color(_ v: Any?, _ p: String, default d: DrawColor) throws -> DrawColor {
            guard let v else { return d }
            guard let s = v as? String, let c = DrawColor(hex: s) else { throw NativeResponseError("\(p) must be a colour #RRGGBB or #RRGGBBAA") }
            return c
        }
        let width = try int(t["width"], "\(path).width", 16...7680), height = try int(t["height"], "\(path).height", 16...4320)
        var duration: MediaTime?
        if let d = t["duration"] {
            guard let n = d as? NSNumber, !(d is String), n.doubleValue > 0, n.doubleValue <= 300 else {
                throw NativeResponseError("\(path).duration must be seconds from 0 to 300")
            }
            duration = MediaTime(seconds: n.doubleValue, timescale: 1000)
        }
        guard let views = t["views"] as? [Any], views.count <= 64 else { throw NativeResponseError("\(path).views must be an array of at most 64 views") }
        var elements: [Element] = []
        for (i, v) in views.enumerated() {
            let p = "\(path).views[\(i)]"
            guard let e = v as? [String: Any] else { throw NativeResponseError("\(p) must be an object") }
            guard let name = e["name"] as? String, !name.isEmpty, name.count <= 100 else { throw NativeResponseError("\(p).name must be a string") }
            let kindName = (e["kind"] as? String) ?? "text"
            guard let kind = Element.Kind(rawValue: kindName) else {
                throw NativeResponseError("\(p).kind must be one of \(Element.Kind.allCases.map(\.rawValue).joined(separator: ", ")), not '\(kindName)'")
            }
            let rect = Draw.PixelRect(x: try int(e["x"], "\(p).x", 0...width - 1), y: try int(e["y"], "\(p).y", 0...height - 1),
                                      width: try int(e["width"], "\(p).width", 1...width), height: try int(e["height"], "\(p).height", 1...height))
            guard rect.x + rect.width <= width, rect.y + rect.height <= height else { throw NativeResponseError("\(p) lies outside the \(width)x\(height) design") }
            elements.append(Element(name: name, kind: kind, rect: rect, size: try int(e["size"], "\(p).size", 6...300, default: 20),
                                    color: try color(e["color"], "\(p).color", default: .white), bold: (e["bold"] as? Bool) ?? false,
                                    fallback: e["fallback"] as? String))
        }
        return NativeTemplate(width: width, height: height, background: try color(t["background"], "\(path).background", default: .black),
                              duration: duration, elements: elements)
    }

    /// Whether the template has a content window (an L-bar layout).
    package var hasContentWindow: Bool { elements.contains { $0.kind == .content } }

    /// The view tree of the template (the "nib" the guide's outlets are bound from): a root of the
    /// design size with one subview per element, named after it, empty until populated.
    @MainActor public func makeView() -> NativeView {
        let root = NativeView(frame: Draw.PixelRect(x: 0, y: 0, width: width, height: height))
        root.backgroundColor = background
        for e in elements {
            let v: NativeView
            switch e.kind {
            case .text:
                let l = NativeLabel(frame: e.rect)
                l.textColor = e.color; l.fontSize = e.size; l.isBold = e.bold
                v = l
            case .image: v = NativeImageView(frame: e.rect)
            case .media:
                let m = NativeView(frame: e.rect)   // the placeholder the app puts a MediaView or an image view into
                v = m
            case .content: v = ContentWindowView(frame: e.rect)
            case .box:
                v = NativeView(frame: e.rect)
                v.backgroundColor = e.color
            }
            v.name = e.name
            root.addSubview(v)
        }
        return root
    }

    /// The template's views filled from `ad` by asset key (what an app's populate method does):
    /// texts, images, the AdChoices icon (hidden when the ad has none), and each `media` view
    /// holding the video when there is one (and `allowVideo`), else its fallback image.
    @MainActor public func populatedView(with ad: CustomNativeAd, allowVideo: Bool = true) -> NativeView {
        let root = makeView()
        for e in elements {
            guard let v = root.view(named: e.name) else { continue }
            switch e.kind {
            case .text: (v as? NativeLabel)?.text = ad.string(forKey: e.name)
            case .image:
                let image = ad.image(forKey: e.name)?.image
                (v as? NativeImageView)?.image = image
                v.isHidden = image == nil
            case .media:
                let inner: NativeView
                if allowVideo, let media = ad.mediaView { inner = media } else { inner = NativeImageView(image: ad.image(forKey: e.fallback ?? "MainImage")?.image) }
                inner.frame = v.bounds
                v.addSubview(inner)
            case .content, .box: break
            }
        }
        return root
    }
}

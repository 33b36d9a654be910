import Draw
import Files
import Foundation

/// A custom ad UI given as JSON (`interlude stitch --ad-ui FILE.json`): text, boxes and images
/// placed in fractions of the picture, shown under a condition, with text templates bound to the
/// frame's ad data, so the custom-UI guide's strings are one file:
///
/// ```json
/// {"elements": [
///   {"text": "Ad {adPosition} of {totalAds} ({remaining}s)", "show": "pod",
///    "x": 0.03, "y": 0.97, "anchor": "bottomLeft", "size": 0.06, "color": "#FFFFFF", "background": "#00000099"},
///   {"text": "Skip this ad in {timeTillSkip}...", "show": "beforeSkip", "x": 0.97, "y": 0.97, "anchor": "bottomRight"},
///   {"text": "Skip ad", "show": "canSkip", "x": 0.97, "y": 0.97, "anchor": "bottomRight", "action": "skip"},
///   {"box": [0, 0, 1, 0.1], "color": "#00000066"},
///   {"image": "logo.png", "rect": [0.85, 0.03, 0.12, 0.12]}
/// ]}
/// ```
/// Placeholders: see `AdUILayout.placeholders`. `x`/`width` are fractions of the picture's width,
/// `y`/`height`/`size`/`padding` of its height. Images are local files named relative to the
/// layout, decoded once by FFmpeg.
public final class AdUILayout: AdUIRenderer {
    /// When an element shows.
    package enum Condition: String, Sendable, CaseIterable {
        /// Always.
        case always
        /// In a pod of more than one ad / for a lone ad.
        case pod, single
        /// Skippable ads / ads that cannot be skipped.
        case skippable, notSkippable
        /// A skippable ad before / from its skip offset.
        case beforeSkip, canSkip
        /// Ads with a click-through URL.
        case clickThrough

        func holds(_ c: AdUIContext) -> Bool {
            switch self {
            case .always: return true
            case .pod: return c.progress.totalAds > 1
            case .single: return c.progress.totalAds <= 1
            case .skippable: return c.skip != .notSkippable
            case .notSkippable: return c.skip == .notSkippable
            case .beforeSkip: if case .waiting = c.skip { return true } else { return false }
            case .canSkip: return c.skip == .available
            case .clickThrough: return c.hasClickThrough
            }
        }
    }

    /// One element of the layout, in fractions of the picture.
    package struct Item: Sendable {
        /// What it is.
        package enum Kind: Sendable {
            /// A text template, its `{placeholders}` filled on every frame.
            case text(String)
            /// A filled rectangle.
            case box
            /// A picture, scaled into the element's rectangle.
            case image(AdUIImage)
        }
        /// Text, box or image.
        package var kind: Kind
        /// Position and size, in fractions of the picture's width and height.
        package var x = 0.0, y = 0.0, width = 0.0, height = 0.0
        /// Which corner of a text the position names.
        package var anchor = AdUIAnchor.topLeft
        /// Text height and the padding around it, in fractions of the picture's height.
        package var size = 0.05, padding = 0.01
        /// Text or box colour.
        package var color = DrawColor.white
        /// A text's background, none when nil.
        package var background: DrawColor?
        /// Whether a text is bold.
        package var bold = false
        /// When the element is shown (`always`, `pod`, `canSkip` …).
        package var show = Condition.always
        /// What a click on it does in a live window (`skip`, `learnMore`), none when nil.
        package var action: AdUIAction?
    }

    /// The names a text template may use in braces.
    package static let placeholders = ["adPosition", "totalAds", "remaining", "timeTillSkip", "duration", "currentTime",
                                      "adTitle", "adId", "advertiserName", "adSystem"]

    /// The layout's elements, bottom first.
    package let items: [Item]

    /// A layout of `items`.
    package init(items: [Item]) { self.items = items }

    /// Reads a layout file; images are read relative to its folder. Throws `AdUILayoutError`.
    public static func load(path: String) throws -> AdUILayout {
        let data: Data
        do { data = try LocalFile.read(path, maxBytes: 1 << 20, what: "ad UI layout") } catch { throw AdUILayoutError(error.description) }
        do {
            return try AdUILayout(json: data, directory: URL(fileURLWithPath: path).deletingLastPathComponent())
        } catch let e as AdUILayoutError {
            throw AdUILayoutError("\(path): \(e.message)")
        }
    }

    /// A layout from JSON; `directory` is where image paths start (nil: images are refused).
    public convenience init(json: Data, directory: URL?) throws {
        guard let root = try? JSONSerialization.jsonObject(with: json) as? [String: Any],
              let list = root["elements"] as? [[String: Any]] else {
            throw AdUILayoutError("not a JSON object with an \"elements\" array")
        }
        var items: [Item] = []
        for (n, e) in list.enumerated() {
            do { items.append(try AdUILayout.item(e, directory: directory)) } catch let err as AdUILayoutError {
                throw AdUILayoutError("element \(n + 1): \(err.message)")
            }
        }
        self.init(items: items)
    }

    private static let keys: Set<String> = ["text", "box", "image", "rect", "x", "y", "anchor", "size", "padding", "color",
                                            "background", "bold", "show", "action"]

    private static func item(_ e: [String: Any], directory: URL?) throws -> Item {
        if let bad = e.keys.sorted().first(where: { !keys.contains($0) }) { throw AdUILayoutError("unknown key \"\(bad)\"") }
        func fraction(_ v: Any?, _ name: String) throws -> Double? {
            guard let v else { return nil }
            guard let d = (v as? NSNumber)?.doubleValue, d >= 0, d <= 1 else { throw AdUILayoutError("\(name) must be a number from 0 to 1") }
            return d
        }
        func rect(_ v: Any?, _ name: String) throws -> [Double] {
            guard let a = v as? [Any], a.count == 4 else { throw AdUILayoutError("\(name) must be [x, y, width, height] in fractions of the picture") }
            return try a.map { try fraction($0, name)! }
        }
        func color(_ v: Any?, _ name: String) throws -> DrawColor? {
            guard let v else { return nil }
            guard let s = v as? String, let c = DrawColor(hex: s) else { throw AdUILayoutError("\(name) must be \"#RRGGBB\" or \"#RRGGBBAA\"") }
            return c
        }
        var item: Item
        let kinds = ["text", "box", "image"].filter { e[$0] != nil }
        guard kinds.count == 1 else { throw AdUILayoutError("needs exactly one of \"text\", \"box\", \"image\"") }
        switch kinds[0] {
        case "text":
            guard let t = e["text"] as? String, !t.isEmpty, t.count <= 200 else { throw AdUILayoutError("text must be a string of 1-200 characters") }
            try checkTemplate(t)
            item = Item(kind: .text(t))
            item.x = try fraction(e["x"], "x") ?? 0
            item.y = try fraction(e["y"], "y") ?? 0
        case "box":
            item = Item(kind: .box)
            let r = try rect(e["box"], "box")
            (item.x, item.y, item.width, item.height) = (r[0], r[1], r[2], r[3])
        default:
            guard let name = e["image"] as? String, !name.isEmpty else { throw AdUILayoutError("image must be a file name") }
            guard let directory else { throw AdUILayoutError("images need a layout file") }
            let url = name.hasPrefix("/") ? URL(fileURLWithPath: name) : directory.appendingPathComponent(name)
            let data: Data
            do { data = try LocalFile.read(url.path, maxBytes: 16 << 20, what: "image") } catch { throw AdUILayoutError("\(error) (at most 16 MB)") }
            do { item = Item(kind: .image(try AdUIImage(data: data))) } catch { throw AdUILayoutError("image \(url.path): \(error)") }
            let r = try rect(e["rect"], "rect")
            (item.x, item.y, item.width, item.height) = (r[0], r[1], r[2], r[3])
        }
        if let a = e["anchor"] {
            guard let s = a as? String, let v = AdUIAnchor(rawValue: s) else {
                throw AdUILayoutError("anchor must be one of \(AdUIAnchor.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            item.anchor = v
        }
        if let s = try fraction(e["size"], "size") { guard s > 0 else { throw AdUILayoutError("size must be above 0") }; item.size = s }
        if let p = try fraction(e["padding"], "padding") { item.padding = p }
        if let c = try color(e["color"], "color") { item.color = c }
        item.background = try color(e["background"], "background")
        if let b = e["bold"] { guard let v = b as? Bool else { throw AdUILayoutError("bold must be true or false") }; item.bold = v }
        if let s = e["show"] {
            guard let v = (s as? String).flatMap(Condition.init(rawValue:)) else {
                throw AdUILayoutError("show must be one of \(Condition.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            item.show = v
        }
        if let a = e["action"] {
            guard let v = (a as? String).flatMap(AdUIAction.init(rawValue:)) else { throw AdUILayoutError("action must be skip or learnMore") }
            item.action = v
        }
        return item
    }

    private static func checkTemplate(_ t: String) throws {
        var rest = Substring(t)
        while let open = rest.firstIndex(of: "{") {
            guard let close = rest[open...].firstIndex(of: "}") else { throw AdUILayoutError("unclosed { in \"\(t)\"") }
            let name = String(rest[rest.index(after: open)..<close])
            guard placeholders.contains(name) else {
                throw AdUILayoutError("unknown placeholder {\(name)} (known: \(placeholders.joined(separator: ", ")))")
            }
            rest = rest[rest.index(after: close)...]
        }
    }

    /// `template` with its placeholders filled from `c`: numbers of seconds are whole seconds
    /// rounded up (`remaining`, `timeTillSkip` — 0 once the ad can be skipped — and `duration`),
    /// `currentTime` rounded down.
    package static func fill(_ template: String, _ c: AdUIContext) -> String {
        guard template.contains("{") else { return template }
        let skipIn: Int
        switch c.skip { case .waiting(let s): skipIn = s; default: skipIn = 0 }
        let values: [String: String] = [
            "adPosition": "\(c.progress.adPosition)", "totalAds": "\(c.progress.totalAds)", "remaining": "\(c.remainingSeconds)",
            "timeTillSkip": "\(skipIn)", "duration": "\(Int(c.progress.duration.rounded(.up)))",
            "currentTime": "\(Int(c.progress.currentTime.rounded(.down)))", "adTitle": c.ad.adTitle, "adId": c.ad.adId,
            "advertiserName": c.ad.advertiserName, "adSystem": c.ad.adSystem,
        ]
        var out = template
        for (k, v) in values { out = out.replacingOccurrences(of: "{\(k)}", with: v) }
        return out
    }

    /// The layout's elements for one ad frame: those whose condition holds, in output pixels,
    /// with their text templates filled.
    public func elements(for c: AdUIContext) -> [AdUIElement] {
        let w = Double(c.width), h = Double(c.height)
        return items.compactMap { item -> AdUIElement? in
            guard item.show.holds(c) else { return nil }
            let rect = Draw.PixelRect(x: Int(item.x * w), y: Int(item.y * h), width: Int(item.width * w), height: Int(item.height * h))
            switch item.kind {
            case .text(let t):
                let style = AdUITextStyle(pixelHeight: max(6, Int(item.size * h)), color: item.color, background: item.background,
                                          padding: Int(item.padding * h), bold: item.bold)
                return .text(AdUILayout.fill(t, c), x: rect.x, y: rect.y, anchor: item.anchor, style: style, action: item.action)
            case .box: return .box(rect, color: item.color)
            case .image(let image): return .image(image, rect)
            }
        }
    }
}

/// A layout that cannot be used: one line.
package struct AdUILayoutError: Error, CustomStringConvertible, Sendable {
    /// What is wrong.
    package var message: String
    init(_ message: String) { self.message = message }
    /// The message.
    package var description: String { message }
}

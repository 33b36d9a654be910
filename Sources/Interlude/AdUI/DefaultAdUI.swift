import Draw
import Foundation

/// IMA's default ad UI: attribution and countdown at the bottom left ("Ad · 0:12",
/// "Ad 1 of 2 · 0:12" in a pod), "Learn more" above it when the ad has a click-through,
/// and the skip button at the bottom right of skippable ads ("Skip in 5", then "Skip ad" from
/// exactly the skip offset). Sizes are fractions of the picture's height; everything stays in
/// the bottom third, clear of the picture's top.
package final class DefaultAdUI: AdUIRenderer {
    /// The attribution/countdown elements shown (IMA's `uiElements`; nil: both).
    package let uiElements: Set<UIElementType>

    /// The default UI with `uiElements` (nil: attribution and countdown).
    package init(uiElements: [UIElementType]? = nil) {
        self.uiElements = Set(uiElements ?? UIElementType.allCases)
    }

    /// The attribution/countdown line for `c`, or nil when both are hidden.
    package func attributionText(_ c: AdUIContext) -> String? {
        var parts: [String] = []
        if uiElements.contains(.adAttribution) {
            parts.append(c.progress.totalAds > 1 ? "Ad \(c.progress.adPosition) of \(c.progress.totalAds)" : "Ad")
        }
        if uiElements.contains(.countdown) { parts.append(AdUIContext.clock(c.remainingSeconds)) }
        return parts.isEmpty ? nil : parts.joined(separator: " · ")
    }

    /// The skip button's label for `c`, or nil for an ad that cannot be skipped.
    package static func skipText(_ c: AdUIContext) -> String? {
        switch c.skip {
        case .notSkippable: return nil
        case .waiting(let s): return "Skip in \(s)"
        case .available: return "Skip ad"
        }
    }

    /// IMA's default UI for one ad frame: the attribution and countdown line, "Learn more" when the ad has a click-through, and the skip countdown or button on a skippable ad.
    package func elements(for c: AdUIContext) -> [AdUIElement] {
        let text = max(10, c.height / 20)            // 18 px at 360p, 54 px at 1080p
        let margin = max(4, c.height / 30), pad = max(2, text / 3)
        var out: [AdUIElement] = []
        if let line = attributionText(c) {
            out.append(.text(line, x: margin, y: c.height - margin, anchor: .bottomLeft,
                             style: AdUITextStyle(pixelHeight: text, color: .white, background: DrawColor.black.withAlpha(128), padding: pad / 2),
                             action: nil))
        }
        if c.hasClickThrough {
            // above the attribution line: the whole UI stays in the bottom third of the picture
            let above = c.height - margin - (text * 6 / 5 + 2 * (pad / 2)) - margin / 2
            out.append(.text("Learn more", x: margin, y: above, anchor: .bottomLeft,
                             style: AdUITextStyle(pixelHeight: text, color: .white, background: DrawColor.black.withAlpha(160), padding: pad),
                             action: .learnMore))
        }
        if let skip = DefaultAdUI.skipText(c) {
            let ready = c.skip == .available
            out.append(.text(skip + (ready ? " ▶" : ""), x: c.width - margin, y: c.height - 2 * margin - text, anchor: .bottomRight,
                             style: AdUITextStyle(pixelHeight: text, color: ready ? .white : DrawColor(r: 200, g: 200, b: 200),
                                                  background: DrawColor.black.withAlpha(ready ? 200 : 150), padding: pad, bold: ready),
                             action: ready ? .skip : nil))
        }
        return out
    }
}

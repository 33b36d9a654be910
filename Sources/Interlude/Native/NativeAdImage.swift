// An image asset of a native ad: its decoded pixels and where it came from.
import Foundation
import Media

/// An image asset of a native ad, as GMA's `GADNativeAdImage`: the decoded picture (nil when the
/// loader was asked for URLs only) and its URL (nil for the built-in AdChoices icon).
public final class NativeAdImage: Sendable {
    /// The decoded picture (RGBA), or nil when image loading was disabled.
    public let image: RGBAImage?
    /// Where the image was fetched from.
    public let imageURL: URL?
    /// Pixels per point of the image (always 1 here: pictures are drawn in output pixels).
    public let scale: Double

    /// An image asset.
    public init(image: RGBAImage?, imageURL: URL?, scale: Double = 1) {
        self.image = image; self.imageURL = imageURL; self.scale = scale
    }
}

/// Asset keys the SDK defines itself, as GMA's `GADNativeAssetIdentifier`.
public enum NativeAssetIdentifier: String, Sendable, CaseIterable {
    /// The AdChoices icon: `image(forKey:)` gives the icon, `performClickOnAsset(withKey:)` opens
    /// the response's `privacy` page and counts no click (GMA's key "3011").
    case adChoicesViewAsset = "3011"
}

/// The AdChoices icon drawn when a response names a privacy page: a 20×20 blue "i" in a circle
/// (at least 15×15 px, as the guide requires). Made in code: nothing is fetched for it.
enum AdChoicesIcon {
    static let size = 20

    static func make() -> RGBAImage {
        let n = size
        var px = [UInt8](repeating: 0, count: n * n * 4)
        let c = Double(n - 1) / 2
        for y in 0..<n {
            for x in 0..<n {
                let dx = Double(x) - c, dy = Double(y) - c
                let r = (dx * dx + dy * dy).squareRoot()
                guard r <= c + 0.5 else { continue }
                let i = (y * n + x) * 4
                // the "i": a dot and a stem, white on blue
                let stem = abs(dx) <= 1.5 && y >= 8 && y <= 15
                let dot = abs(dx) <= 1.5 && y >= 4 && y <= 6
                if stem || dot { px[i] = 255; px[i + 1] = 255; px[i + 2] = 255 } else { px[i] = 0; px[i + 1] = 170; px[i + 2] = 210 }
                px[i + 3] = 255
            }
        }
        // Cannot throw: the buffer holds exactly n×n RGBA pixels.
        return try! RGBAImage(width: n, height: n, pixels: px)
    }
}

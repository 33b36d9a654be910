// GMA's GADAdLoader for custom native formats: requests a native response and hands back CustomNativeAds.
import Ads
import Foundation

/// The kinds of ad an `AdLoader` may be asked for (GMA's `GADAdLoaderAdType`). Interlude loads
/// custom native formats; a loader asked for none of them fails with `.invalidRequest`.
public enum AdLoaderAdType: String, Sendable, Hashable, CaseIterable {
    /// System-defined native ads (not served by Interlude).
    case native
    /// Publisher-defined custom native formats.
    case customNative
}

/// An option given to an `AdLoader` (GMA's `GADAdLoaderOptions`).
public protocol AdLoaderOption: Sendable {}

/// Image options (GMA's `GADNativeAdImageAdLoaderOptions`).
public struct NativeAdImageAdLoaderOptions: AdLoaderOption {
    /// Fetch no image; `NativeAdImage`s carry only their URL.
    public var disableImageLoading = false
    /// Defaults: images are fetched and decoded.
    public init(disableImageLoading: Bool = false) { self.disableImageLoading = disableImageLoading }
}

/// A request for ads (GMA's `GADRequest`).
public struct AdRequest: Sendable {
    /// An empty request.
    public init() {}
}

/// Hears that loading failed or finished (GMA's `GADAdLoaderDelegate`).
@MainActor public protocol AdLoaderDelegate: AnyObject {
    /// No ad: `error` says why in one line (a `NativeAdError`).
    func adLoader(_ adLoader: AdLoader, didFailToReceiveAdWithError error: Error)
    /// Loading is over (after the ad or the failure).
    func adLoaderDidFinishLoading(_ adLoader: AdLoader)
}

extension AdLoaderDelegate {
    /// Does nothing: the message is optional.
    public func adLoaderDidFinishLoading(_ adLoader: AdLoader) {}
}

/// Receives custom native ads (GMA's `GADCustomNativeAdLoaderDelegate`).
@MainActor public protocol CustomNativeAdLoaderDelegate: AdLoaderDelegate {
    /// The format ids the app can show, in order of preference.
    func customNativeAdFormatIDs(for adLoader: AdLoader) -> [String]
    /// A custom native ad of one of those formats arrived.
    func adLoader(_ adLoader: AdLoader, didReceive customNativeAd: CustomNativeAd)
}

/// Loads custom native ads (GMA's `GADAdLoader`). The ad unit is where the OpenRTB Native 1.2
/// response is: an http(s) URL (fetched with the ad-tag fetcher's deadline, size cap and scheme
/// rules) or a local file. The formats it may be are registered with `register(_:)` and chosen
/// among those the delegate asks for.
@MainActor public final class AdLoader {
    /// Where the native response is (URL or path).
    public let adUnitID: String
    /// The kinds of ad asked for.
    public let adTypes: [AdLoaderAdType]
    /// The loader's options.
    public let options: [AdLoaderOption]
    /// Receives the outcome; a `CustomNativeAdLoaderDelegate` for custom native ads.
    public weak var delegate: AdLoaderDelegate?
    /// Limits of loading (timeouts, sizes, network).
    package var settings = NativeLoadSettings()
    /// How responses and images are fetched over http(s).
    package var fetcher: any AdDocumentFetcher = HTTPAdFetcher()
    /// Fires impression and click trackers.
    package var beaconSender = BeaconSender()
    /// Opens click destinations for the ads this loader makes (the app's).
    public var urlOpener: NativeURLOpener = RecordingURLOpener()
    /// Whether a load is in progress.
    public private(set) var isLoading = false
    private var formats: [String: NativeFormatDefinition] = [:]

    /// A loader (GMA's `init(adUnitID:rootViewController:adTypes:options:)`; there is no view
    /// controller on a server: pass nil or anything).
    public init(adUnitID: String, rootViewController: AnyObject? = nil, adTypes: [AdLoaderAdType], options: [AdLoaderOption]? = nil) {
        self.adUnitID = adUnitID
        self.adTypes = adTypes
        self.options = options ?? []
        for o in self.options {
            if let image = o as? NativeAdImageAdLoaderOptions { settings.disableImageLoading = image.disableImageLoading }
        }
        register(.guideSample)
    }

    /// Makes `format` known to the loader (the guide's 10063170 is known from the start).
    public func register(_ format: NativeFormatDefinition) { formats[format.formatID] = format }

    /// Starts loading; the delegate hears the outcome later on the main actor.
    public func load(_ request: AdRequest = AdRequest()) {
        isLoading = true
        Task { @MainActor in
            do {
                let ad = try await self.loadAd(request)
                (self.delegate as? CustomNativeAdLoaderDelegate)?.adLoader(self, didReceive: ad)
            } catch {
                self.delegate?.adLoader(self, didFailToReceiveAdWithError: error)
            }
            self.isLoading = false
            self.delegate?.adLoaderDidFinishLoading(self)
        }
    }

    /// Loads one ad and returns it: the async alternative to `load(_:)`. Throws `NativeAdError`.
    public func loadAd(_ request: AdRequest = AdRequest()) async throws(NativeAdError) -> CustomNativeAd {
        guard adTypes.contains(.customNative) else {
            throw NativeAdError(.invalidRequest, "ad types \(adTypes.map(\.rawValue)) include no customNative (the only kind Interlude loads)")
        }
        let requested = (delegate as? CustomNativeAdLoaderDelegate)?.customNativeAdFormatIDs(for: self) ?? []
        guard !requested.isEmpty else { throw NativeAdError(.invalidRequest, "the delegate asks for no custom native format id") }
        let (response, location) = try await NativeResponseResolver.load(adUnitID, settings: settings, fetcher: fetcher)
        guard let format = NativeAdAssembler.matchFormat(response, requested: requested, known: formats) else {
            throw NativeAdError(.noFill, "native response \(adUnitID) fits none of the requested formats \(requested) (unknown ids need register(_:))")
        }
        return try await NativeAdAssembler.assemble(response: response, format: format, responseURL: location, settings: settings,
                                                   fetcher: fetcher, beacons: beaconSender, opener: urlOpener)
    }
}

/// A publisher's custom native format (names of its assets mapped to OpenRTB asset ids), for
/// apps that import only Interlude.
public typealias CustomNativeFormat = NativeFormatDefinition

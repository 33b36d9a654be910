// Turning a parsed native response into a CustomNativeAd: assets by name, images fetched and decoded, video chosen.
import Ads
import Foundation
import Media

/// Limits and choices of native-ad loading.
package struct NativeLoadSettings: Sendable {
    /// Seconds to fetch the response, and each image.
    package var timeout: Double = 8
    /// Seconds to fetch all of an ad's images together.
    package var imagesTimeout: Double = 15
    /// Largest response, bytes.
    package var maxResponseBytes = 256 << 10
    /// Largest image file, bytes.
    package var maxImageBytes = 4 << 20
    /// Most pixels of a decoded image (checked by the decoder before it allocates).
    package var maxImagePixels = 4_194_304
    /// Fetch no image: `NativeAdImage`s carry their URL only (GMA's `disableImageLoading`).
    package var disableImageLoading = false
    /// How the video asset's media file is chosen.
    package var media = MediaSelectionPreferences()
    /// Whether http(s) may be fetched at all.
    package var allowNetwork = true
    /// Defaults.
    package init() {}
}

/// Builds `CustomNativeAd`s from responses. Every URL in a response is judged by `TagLocation`:
/// http(s) always, `file` only when the response itself was local (never from the network).
package enum NativeAdAssembler {
    /// The ad in `response` as `format`. `responseURL` is where the response came from (its
    /// scheme decides whether its URLs may be local files; nil: given by the app, local allowed).
    public static func assemble(response: NativeResponse, format: NativeFormatDefinition, responseURL: URL?,
                                settings: NativeLoadSettings = NativeLoadSettings(),
                                fetcher: any AdDocumentFetcher = HTTPAdFetcher(),
                                beacons: BeaconSender = BeaconSender(),
                                opener: NativeURLOpener = RecordingURLOpener()) async throws(NativeAdError) -> CustomNativeAd {
        var strings: [String: String] = [:]
        var images: [String: NativeAdImage] = [:]
        var videoURL: String?
        var aspect: Double?
        var videoProblem: String?
        let started = Date()
        for asset in format.assets {
            guard let a = response.asset(id: asset.id) else { continue }
            switch (asset.type, a.content) {
            case (.text, .title(let s)), (.text, .data(let s, _)):
                strings[asset.name] = s
            case (.image, .image(let raw, _, _)):
                let url = try resolve(raw, base: responseURL, what: "\(asset.name) image")
                if settings.disableImageLoading {
                    images[asset.name] = NativeAdImage(image: nil, imageURL: url)
                } else {
                    var each = settings
                    each.timeout = min(settings.timeout, settings.imagesTimeout - Date().timeIntervalSince(started))
                    guard each.timeout > 0 else {
                        throw NativeAdError(.networkError, "\(asset.name) image: the ad's images took longer than \(settings.imagesTimeout) s together")
                    }
                    let bytes = try await fetch(url, settings: each, fetcher: fetcher, what: "\(asset.name) image")
                    do {
                        images[asset.name] = NativeAdImage(image: try ImageDecoder.decode(bytes, maxPixels: settings.maxImagePixels), imageURL: url)
                    } catch {
                        throw NativeAdError(.receivedInvalidResponse, "\(asset.name) image \(url.absoluteString): \(error)")
                    }
                }
            case (.video, .video(let tag)):
                // inline or through a wrapper chain, with the ad-tag limits
                let outcome = await NativeVideoResolver.resolve(tag, base: responseURL, settings: settings, fetcher: fetcher)
                (videoURL, aspect, videoProblem) = (outcome.url, outcome.aspect, outcome.problem.map { "\(asset.name): \($0)" })
            default:
                continue   // the response's asset is of another kind than the format says: treated as missing
            }
        }
        if response.privacy.flatMap({ URL(string: $0) })?.scheme.map({ ["http", "https"].contains($0.lowercased()) }) == true {
            images[NativeAssetIdentifier.adChoicesViewAsset.rawValue] = NativeAdImage(image: settings.disableImageLoading ? nil : AdChoicesIcon.make(), imageURL: nil)
        }
        return CustomNativeAd(format: format, response: response, strings: strings, images: images,
                              mediaContent: MediaContent(videoURL: videoURL, aspectRatio: aspect, problem: videoProblem), responseURL: responseURL,
                              beacons: beacons, opener: opener)
    }

    /// The format among `requested` ids (in order) that `response` fits: the first whose asset
    /// ids include one of the response's. Nil when none does.
    public static func matchFormat(_ response: NativeResponse, requested: [String], known: [String: NativeFormatDefinition]) -> NativeFormatDefinition? {
        let ids = Set(response.assets.map(\.id))
        for id in requested {
            if let f = known[id], f.assets.contains(where: { ids.contains($0.id) }) { return f }
        }
        return nil
    }

    static func resolve(_ raw: String, base: URL?, what: String) throws(NativeAdError) -> URL {
        switch TagLocation.resolve(raw, base: base) {
        case .success(let url): return url
        case .failure(let refusal): throw NativeAdError(.receivedInvalidResponse, "\(what): \(refusal.message)")
        }
    }

    /// The bytes at `url` (http(s) through the fetcher, a local file read within the cap).
    static func fetch(_ url: URL, settings: NativeLoadSettings, fetcher: any AdDocumentFetcher, what: String) async throws(NativeAdError) -> Data {
        if url.isFileURL {
            return try readLocal(url.path, maxBytes: settings.maxImageBytes, what: what)
        }
        guard settings.allowNetwork else { throw NativeAdError(.networkError, "\(what) \(url.absoluteString): network access is off") }
        do {
            return try await fetcher.fetch(url, timeout: settings.timeout, maxBytes: settings.maxImageBytes)
        } catch {
            throw NativeAdError(.networkError, "\(what) \(url.absoluteString): \(error)")
        }
    }

    /// The bytes of a regular local file of at most `maxBytes` (`what` names it in errors).
    public static func readLocal(_ path: String, maxBytes: Int, what: String) throws(NativeAdError) -> Data {
        var st = stat()
        guard stat(path, &st) == 0 else { throw NativeAdError(.networkError, "\(what) \(path) not found") }
        guard st.st_mode & S_IFMT == S_IFREG else { throw NativeAdError(.networkError, "\(what) \(path) is not a regular file") }
        guard Int(st.st_size) <= maxBytes else { throw NativeAdError(.receivedInvalidResponse, "\(what) \(path) is larger than \(maxBytes) bytes") }
        guard let h = FileHandle(forReadingAtPath: path) else { throw NativeAdError(.networkError, "\(what) \(path) cannot be read") }
        defer { try? h.close() }
        let data = (try? h.read(upToCount: maxBytes + 1)) ?? Data()
        guard data.count <= maxBytes else { throw NativeAdError(.receivedInvalidResponse, "\(what) \(path) is larger than \(maxBytes) bytes") }
        return data
    }
}

// Limits and preferences for resolving a tag; defaults follow IMA.
import Timing

/// How `AdTagResolver` resolves tags: redirect limit, timeouts, size cap, media preferences.
public struct AdTagOptions: Sendable, Hashable {
    /// Most wrapper redirects followed in one chain (IMA's `maxRedirects`, default 4). Beyond: error 302.
    public var maxRedirects: Int
    /// Timeout of the first request, seconds (IMA: 8 s).
    public var initialTimeout: Double
    /// Timeout of each wrapper's request, seconds (IMA: 4 s).
    public var wrapperTimeout: Double
    /// Largest document accepted, bytes (default 2 MiB).
    public var maxDocumentBytes: Int
    /// Media-file selection preferences.
    public var media: MediaSelectionPreferences
    /// Content duration, to place `n%` VMAP breaks and expand `repeatAfter`.
    public var contentDuration: MediaTime?
    /// Whether http(s) may be fetched at all (false: network tags fail with 301 without a request).
    public var allowNetwork: Bool
    /// Default for `allowMultipleAds` when a VAST 3+ wrapper does not say (spec: false).
    public var defaultAllowMultipleAds: Bool
    /// `templateType`s of VMAP `<CustomAdData>` breaks the app plays itself (native ads): left out of the schedule.
    public var appTemplateTypes: Set<String> = []

    /// Options; every default is IMA's where IMA has one.
    public init(maxRedirects: Int = 4, initialTimeout: Double = 8, wrapperTimeout: Double = 4,
                maxDocumentBytes: Int = 2 << 20, media: MediaSelectionPreferences = MediaSelectionPreferences(),
                contentDuration: MediaTime? = nil, allowNetwork: Bool = true, defaultAllowMultipleAds: Bool = false) {
        self.maxRedirects = maxRedirects
        self.initialTimeout = initialTimeout
        self.wrapperTimeout = wrapperTimeout
        self.maxDocumentBytes = maxDocumentBytes
        self.media = media
        self.contentDuration = contentDuration
        self.allowNetwork = allowNetwork
        self.defaultAllowMultipleAds = defaultAllowMultipleAds
    }
}

/// Why a tag could not be read at all (nothing to schedule), with the code the spec assigns.
public struct AdLoadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The VAST/VMAP code: 100/101/102 or 1000–1002 for unusable documents, 301/1008 for fetch failures.
    public var code: VASTErrorCode
    /// One line for a person.
    public var message: String
    /// Error URLs that can still be told (rarely any: the document was not readable).
    public var errorURLs: [URLTemplate]

    /// Makes an error.
    public init(code: VASTErrorCode, message: String, errorURLs: [URLTemplate] = []) {
        self.code = code
        self.message = Printable.escaped(message)
        self.errorURLs = errorURLs
    }

    /// `error 100: message`.
    public var description: String { "error \(code): \(message)" }
}

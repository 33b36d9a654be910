import Ads
import Foundation
import Threads
import Timing

/// What a successful request hands back, as IMA's `IMAAdsLoadedData`.
public final class AdsLoadedData: Sendable {
    /// The manager of the loaded ads.
    public let adsManager: AdsManager
    /// The request's user context.
    public let userContext: (any Sendable)?
    init(adsManager: AdsManager, userContext: (any Sendable)?) { self.adsManager = adsManager; self.userContext = userContext }
}

/// What a failed request hands back, as IMA's `IMAAdLoadingErrorData`.
public struct AdLoadingErrorData: Sendable {
    /// The error (VAST code below 1000, IMA's above).
    public let adError: AdError
    /// The request's user context.
    public let userContext: (any Sendable)?
}

/// Receives the outcome of `AdsLoader.requestAds(_:)`, as IMA's `IMAAdsLoaderDelegate`, on the
/// loader's `delegateQueue` (main by default). A main-actor class conforms with `@preconcurrency`.
public protocol AdsLoaderDelegate: AnyObject, Sendable {
    /// Ads loaded: initialise the manager and (for a plain VAST tag) start it on LOADED.
    func adsLoader(_ loader: AdsLoader, adsLoadedWith adsLoadedData: AdsLoadedData)
    /// The request failed: play the content without ads.
    func adsLoader(_ loader: AdsLoader, failedWith adErrorData: AdLoadingErrorData)
}

/// Requests ads and hands back `AdsManager`s, as IMA's `IMAAdsLoader`. Make one and reuse it.
///
/// Its delegate, and the delegates of the managers it makes, are called on `delegateQueue`
/// (main by default, as in IMA); the managers decide on queues of their own, so a stitch or a
/// player never waits for the app's queue to go on (see `AdsManager`). Any thread may use it.
public final class AdsLoader: Sendable {
    /// Settings, copied at creation.
    public let settings: Settings
    /// Where this loader's delegate and its managers' delegates are called.
    public let delegateQueue: DispatchQueue

    private struct Config {
        weak var delegate: AdsLoaderDelegate?
        var fetcher: any AdDocumentFetcher = HTTPAdFetcher()
        var mediaPreferences = MediaSelectionPreferences()
        var appTemplateTypes: Set<String> = []
        var mediaCache: AdMediaCache? = AdMediaCache()
        var managersDecideInStep = false
        var managers: [WeakManager] = []
        var beacons: [TrackedBeacon] = []
    }
    private let config = Locked(Config())

    /// Receives loaded / failed callbacks.
    public var delegate: AdsLoaderDelegate? {
        get { config.withLock { $0.delegate } }
        set { config.withLock { $0.delegate = newValue } }
    }
    /// How documents are fetched (`HTTPAdFetcher` by default; tests may use another).
    package var fetcher: any AdDocumentFetcher {
        get { config.withLock { $0.fetcher } }
        set { config.withLock { $0.fetcher = newValue } }
    }
    /// Media-file preferences used while resolving (output size for "closest to the output").
    package var mediaPreferences: MediaSelectionPreferences {
        get { config.withLock { $0.mediaPreferences } }
        set { config.withLock { $0.mediaPreferences = newValue } }
    }
    /// VMAP `<CustomAdData templateType>`s this app plays itself (native breaks): left out of the managers' schedules.
    package var appTemplateTypes: Set<String> {
        get { config.withLock { $0.appTemplateTypes } }
        set { config.withLock { $0.appTemplateTypes = newValue } }
    }
    /// Where the managers of this loader fetch network ad media (preloading); one per loader.
    public var mediaCache: AdMediaCache? {
        get { config.withLock { $0.mediaCache } }
        set { config.withLock { $0.mediaCache = newValue } }
    }
    /// Whether the managers made from now on decide in step with their delegate: on the
    /// `delegateQueue` itself, each delegate call answered before the frame loop goes on (a
    /// viewer script reacting to events, `PlaySession`; the app's own views drawn in a run as
    /// fast as possible). Otherwise a manager decides on a queue of its own.
    var managersDecideInStep: Bool {
        get { config.withLock { $0.managersDecideInStep } }
        set { config.withLock { $0.managersDecideInStep = newValue } }
    }

    /// A loader with a copy of `settings` (nil: defaults), as `IMAAdsLoader(settings:)`, whose
    /// delegates are called on `delegateQueue`.
    public init(settings: Settings? = nil, delegateQueue: DispatchQueue = .main) {
        self.settings = settings?.copy() ?? Settings()
        self.delegateQueue = delegateQueue
    }

    /// Starts loading; the delegate hears the outcome later on `delegateQueue` (IMA's
    /// `requestAds(with:)`).
    public func requestAds(with request: AdsRequest) { requestAds(request) }

    /// Starts loading; the delegate hears the outcome later on `delegateQueue`.
    public func requestAds(_ request: AdsRequest) {
        Task {
            let outcome: Result<AdsLoadedData, AdError>
            do {
                outcome = .success(try await self.loadAds(request))
            } catch let e as AdError {
                outcome = .failure(e)
            } catch {
                outcome = .failure(AdError(type: .adLoadingFailed, code: 1005, message: "\(error)"))
            }
            delegateQueue.async {
                switch outcome {
                case .success(let data): self.delegate?.adsLoader(self, adsLoadedWith: data)
                case .failure(let e):
                    self.delegate?.adsLoader(self, failedWith: AdLoadingErrorData(adError: e, userContext: request.userContext))
                }
            }
        }
    }

    /// Loads ads and returns the manager: the async alternative to `requestAds(_:)`.
    /// Throws an `AdError` (type `.adLoadingFailed`) when the tag cannot be used at all.
    public func loadAds(_ request: AdsRequest) async throws -> AdsLoadedData {
        let (fetcher, preferences, templateTypes, cache, inStep) = config.withLock {
            ($0.fetcher, $0.mediaPreferences, $0.appTemplateTypes, $0.mediaCache, $0.managersDecideInStep)
        }
        var options = AdTagOptions()
        options.maxRedirects = settings.maxRedirects
        if let ms = request.vastLoadTimeout, ms > 0 { options.initialTimeout = ms / 1000; options.wrapperTimeout = ms / 1000 }
        if let d = request.contentDuration, d > 0 { options.contentDuration = MediaTime(seconds: d, timescale: 1000) }
        options.media = preferences
        options.appTemplateTypes = templateTypes
        if options.media.outputWidth == nil, let surface = request.adDisplayContainer.adContainer {
            // media closest to what the viewer sees
            options.media.outputWidth = surface.format.width
            options.media.outputHeight = surface.format.height
        }
        let loader = AdTagResolver(options: options, fetcher: fetcher)
        let schedule: AdSchedule
        var localOrigin = false
        do {
            if let tag = request.adTagUrl {
                schedule = try await loader.load(tag: tag)
                localOrigin = AdsLoader.isLocal(tag)
            } else if let response = request.adsResponse {
                schedule = try await loader.load(response: Data(response.utf8),
                                                 baseURL: URL(fileURLWithPath: FileManager.default.currentDirectoryPath + "/"))
                localOrigin = true
            } else {
                throw AdError(type: .adLoadingFailed, code: 1101, message: "the request has neither an ad tag nor a response")
            }
        } catch let e as AdLoadError {
            throw AdError(type: .adLoadingFailed, code: e.code.rawValue, message: e.message)
        }
        if let noFill = schedule.noFill {
            // As IMA: a response with nothing to play is an ad-loading error (the app plays its
            // content), and every Error URL of what failed is requested with its code.
            reportErrorURLs(of: schedule, request: request)
            throw AdError(type: .adLoadingFailed, code: noFill.code, message: noFill.message, adId: noFill.issue.adId)
        }
        var base: URL? = URL(fileURLWithPath: FileManager.default.currentDirectoryPath, isDirectory: true)
        if let tag = request.adTagUrl, localOrigin {
            let url = URL(string: tag).flatMap { $0.scheme == nil ? nil : $0 } ?? URL(fileURLWithPath: tag)
            base = url.deletingLastPathComponent()
        }
        let manager = AdsManager(schedule: schedule, settings: settings, request: request, localOrigin: localOrigin,
                                 mediaBase: localOrigin ? base : nil, mediaCache: cache, delegateQueue: delegateQueue,
                                 decidesInStep: inStep || AdsManager.appViewsNeedStep(request))
        config.withLock {
            $0.managers.removeAll { $0.value == nil }
            $0.managers.append(WeakManager(manager))
        }
        return AdsLoadedData(adsManager: manager, userContext: request.userContext)
    }

    /// The Error URLs of responses that failed to load (no fill), `[ERRORCODE]` expanded, in
    /// order (a loaded response's beacons are its manager's).
    package var beacons: [TrackedBeacon] { config.withLock { $0.beacons } }
    /// Fires the loader's Error URLs over HTTP when the request's display plays live.
    package let beaconSender = BeaconSender()

    /// Records (and, on a live display, fires) the Error URL of every error of `schedule`, each
    /// with its own VAST code (900 for codes that have none).
    private func reportErrorURLs(of schedule: AdSchedule, request: AdsRequest) {
        let display = request.adDisplayContainer.videoDisplay
        for issue in schedule.errors {
            var context = MacroContext()
            context.errorCode = issue.code ?? .undefined
            for url in issue.errorURLs {
                let b = TrackedBeacon(event: "error", streamTime: display?.streamTime ?? .zero, contentTime: display?.contentTime ?? .zero,
                                      url: MacroExpander.expand(url, context: context), adId: issue.adId, breakId: issue.breakId)
                config.withLock { $0.beacons.append(b) }
                if display?.firesBeaconsLive == true { beaconSender.fire(b) }
            }
        }
    }

    /// Content has ended: managers play their post-rolls, then fire ALL_ADS_COMPLETED. Idempotent.
    public func contentComplete() {
        let live = config.withLock { c -> [AdsManager] in
            c.managers.removeAll { $0.value == nil }
            return c.managers.compactMap(\.value)
        }
        for m in live { m.contentComplete() }
    }

    /// Whether a tag names a local file (a path or `file://`).
    static func isLocal(_ tag: String) -> Bool {
        guard let scheme = URL(string: tag)?.scheme?.lowercased() else { return true }
        return scheme == "file"
    }

    private struct WeakManager { weak var value: AdsManager?; init(_ m: AdsManager) { value = m } }
}

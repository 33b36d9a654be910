// What opens a click's destination: the app decides (there is no browser on a server).
import Foundation
import Threads

/// Opens the destinations of native-ad clicks, as `UIApplication.canOpenURL/open` does for the
/// SDK: deep links into apps and web pages. The app supplies it; Interlude only asks.
public protocol NativeURLOpener: AnyObject, Sendable {
    /// Whether an app can open `url` (a deep link such as `shop://item/1`).
    func canOpen(_ url: URL) -> Bool
    /// Opens `url` (a deep link the opener said it can open, or an http(s) page).
    func open(_ url: URL)
}

/// An opener that can open nothing but records the web pages it is asked to show: the default
/// when the app supplies none (a server has no browser; the report shows where a click went).
public final class RecordingURLOpener: NativeURLOpener, Sendable {
    private let log = Locked<[URL]>([])
    private let apps: Set<String>

    /// An opener; `appSchemes` are the deep-link schemes it pretends an installed app handles.
    public init(appSchemes: Set<String> = []) { apps = Set(appSchemes.map { $0.lowercased() }) }

    /// Whether `url`'s scheme is one of the app schemes (http(s) pages are always openable).
    public func canOpen(_ url: URL) -> Bool {
        guard let s = url.scheme?.lowercased() else { return false }
        return s == "http" || s == "https" || apps.contains(s)
    }

    /// Records `url`.
    public func open(_ url: URL) { log.withLock { $0.append(url) } }

    /// Everything opened, in order.
    public var opened: [URL] { log.withLock { $0 } }
}

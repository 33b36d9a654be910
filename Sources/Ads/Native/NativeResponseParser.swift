// Reading an OpenRTB Native 1.2 response from hostile bytes, within limits, with one-line errors.
import Foundation

/// Why a native response was refused: one line for a person.
public struct NativeResponseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// One line for a person.
    public var message: String
    /// An error.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// Parses OpenRTB Native 1.2 responses (`{"native": {...}}` or the bare native object).
///
/// Everything is bounded before it is kept: the document's size, the number of assets and
/// trackers, the length of every string. A value of the wrong JSON type is an error naming its
/// path (`native.assets[2].img.url must be a string`), never a crash or a silent default.
public struct NativeResponseParser: Sendable {
    /// Largest document accepted, bytes.
    public var maxBytes: Int
    /// Most assets.
    public var maxAssets: Int
    /// Most trackers in each list (imptrackers, eventtrackers, clicktrackers).
    public var maxTrackers: Int
    /// Longest text (title, data) in characters.
    public var maxTextLength: Int
    /// Longest URL in bytes.
    public var maxURLLength: Int

    /// A parser with limits suited to native ads (a response is a few KB).
    public init(maxBytes: Int = 256 << 10, maxAssets: Int = 64, maxTrackers: Int = 32, maxTextLength: Int = 2_000, maxURLLength: Int = 4_096) {
        self.maxBytes = maxBytes; self.maxAssets = maxAssets; self.maxTrackers = maxTrackers
        self.maxTextLength = maxTextLength; self.maxURLLength = maxURLLength
    }

    /// The response in `data`, or why it cannot be used.
    public func parse(_ data: Data) -> Result<NativeResponse, NativeResponseError> {
        Result { try parseOrThrow(data) }.mapError { $0 as? NativeResponseError ?? NativeResponseError("\($0)") }
    }

    func parseOrThrow(_ data: Data) throws -> NativeResponse {
        guard data.count <= maxBytes else { throw NativeResponseError("native response larger than \(maxBytes) bytes (\(data.count))") }
        guard !data.isEmpty else { throw NativeResponseError("native response is empty") }
        let root: Any
        do { root = try JSONSerialization.jsonObject(with: data, options: []) } catch {
            throw NativeResponseError("native response is not valid JSON")
        }
        guard let top = root as? [String: Any] else { throw NativeResponseError("native response must be a JSON object") }
        let native: [String: Any]
        var path = "native"
        if let inner = top["native"] {
            guard let o = inner as? [String: Any] else { throw NativeResponseError("native must be an object") }
            native = o
        } else if top["assets"] != nil || top["link"] != nil {
            native = top
            path = "(native)"
        } else {
            throw NativeResponseError("no native object (expected {\"native\": {...}} with assets and link)")
        }
        var warnings: [String] = []
        let version = try optionalString(native["ver"], "\(path).ver", limit: 16)
        var assets: [NativeAsset] = []
        var ids = Set<Int>()
        if let raw = native["assets"] {
            guard let list = raw as? [Any] else { throw NativeResponseError("\(path).assets must be an array") }
            guard list.count <= maxAssets else { throw NativeResponseError("\(path).assets has \(list.count) assets (at most \(maxAssets))") }
            for (i, item) in list.enumerated() {
                let p = "\(path).assets[\(i)]"
                guard let o = item as? [String: Any] else { throw NativeResponseError("\(p) must be an object") }
                guard let idValue = o["id"] else { warnings.append("\(p) has no id; ignored"); continue }
                let id = try int(idValue, "\(p).id")
                guard ids.insert(id).inserted else { throw NativeResponseError("\(p).id \(id) is used twice") }
                let required = try optionalInt(o["required"], "\(p).required") == 1
                let link = try o["link"].map { try parseLink($0, "\(p).link") }
                let content: NativeAsset.Content
                if let t = o["title"] {
                    guard let title = t as? [String: Any] else { throw NativeResponseError("\(p).title must be an object") }
                    content = .title(try string(title["text"], "\(p).title.text", limit: maxTextLength))
                } else if let m = o["img"] {
                    guard let img = m as? [String: Any] else { throw NativeResponseError("\(p).img must be an object") }
                    content = .image(url: try string(img["url"], "\(p).img.url", limit: maxURLLength),
                                     width: try optionalInt(img["w"], "\(p).img.w"), height: try optionalInt(img["h"], "\(p).img.h"))
                } else if let v = o["video"] {
                    guard let video = v as? [String: Any] else { throw NativeResponseError("\(p).video must be an object") }
                    content = .video(vastTag: try string(video["vasttag"], "\(p).video.vasttag", limit: maxBytes))
                } else if let d = o["data"] {
                    guard let dat = d as? [String: Any] else { throw NativeResponseError("\(p).data must be an object") }
                    content = .data(try string(dat["value"], "\(p).data.value", limit: maxTextLength), type: try optionalInt(dat["type"], "\(p).data.type"))
                } else {
                    warnings.append("\(p) (id \(id)) has no title, img, video or data; ignored")
                    continue
                }
                assets.append(NativeAsset(id: id, required: required, content: content, link: link))
            }
        }
        let link = try native["link"].map { try parseLink($0, "\(path).link") }
        let imp = try urls(native["imptrackers"], "\(path).imptrackers")
        var events: [NativeEventTracker] = []
        if let raw = native["eventtrackers"] {
            guard let list = raw as? [Any] else { throw NativeResponseError("\(path).eventtrackers must be an array") }
            guard list.count <= maxTrackers else { throw NativeResponseError("\(path).eventtrackers has \(list.count) entries (at most \(maxTrackers))") }
            for (i, item) in list.enumerated() {
                let p = "\(path).eventtrackers[\(i)]"
                guard let o = item as? [String: Any] else { throw NativeResponseError("\(p) must be an object") }
                let t = NativeEventTracker(event: try int(o["event"], "\(p).event"), method: try int(o["method"], "\(p).method"),
                                           url: try optionalString(o["url"], "\(p).url", limit: maxURLLength))
                if t.method != NativeEventTracker.imageMethod { warnings.append("\(p): method \(t.method) (JavaScript) is not run; ignored") }
                events.append(t)
            }
        }
        if native["jstracker"] != nil { warnings.append("\(path).jstracker: JavaScript is not run; ignored") }
        let privacy = try optionalString(native["privacy"], "\(path).privacy", limit: maxURLLength)
        return NativeResponse(version: version, assets: assets, link: link, impressionTrackers: imp, eventTrackers: events,
                              privacy: privacy, warnings: warnings)
    }

    func parseLink(_ value: Any, _ p: String) throws -> NativeLink {
        guard let o = value as? [String: Any] else { throw NativeResponseError("\(p) must be an object") }
        return NativeLink(url: try string(o["url"], "\(p).url", limit: maxURLLength),
                          clickTrackers: try urls(o["clicktrackers"], "\(p).clicktrackers"),
                          fallback: try optionalString(o["fallback"], "\(p).fallback", limit: maxURLLength))
    }

    func urls(_ value: Any?, _ p: String) throws -> [String] {
        guard let value else { return [] }
        guard let list = value as? [Any] else { throw NativeResponseError("\(p) must be an array of strings") }
        guard list.count <= maxTrackers else { throw NativeResponseError("\(p) has \(list.count) entries (at most \(maxTrackers))") }
        return try list.enumerated().map { try string($0.element, "\(p)[\($0.offset)]", limit: maxURLLength) }
    }

    func string(_ value: Any?, _ p: String, limit: Int) throws -> String {
        guard let value else { throw NativeResponseError("\(p) is missing") }
        guard let s = value as? String, !(value is NSNumber) else { throw NativeResponseError("\(p) must be a string") }
        guard s.utf8.count <= limit * 4, s.count <= limit else { throw NativeResponseError("\(p) is longer than \(limit) characters") }
        return s
    }

    func optionalString(_ value: Any?, _ p: String, limit: Int) throws -> String? {
        guard let value, !(value is NSNull) else { return nil }
        return try string(value, p, limit: limit)
    }

    func int(_ value: Any?, _ p: String) throws -> Int {
        guard let value else { throw NativeResponseError("\(p) is missing") }
        guard let n = value as? NSNumber, !(value is String), isIntegral(n) else { throw NativeResponseError("\(p) must be an integer") }
        guard let i = Int(exactly: n.int64Value), i >= Int(Int32.min), i <= Int(Int32.max) else { throw NativeResponseError("\(p) is out of range") }
        return i
    }

    func optionalInt(_ value: Any?, _ p: String) throws -> Int? {
        guard let value, !(value is NSNull) else { return nil }
        return try int(value, p)
    }
}

/// Whether a JSON number is whole (`3`, not `3.5`).
private func isIntegral(_ n: NSNumber) -> Bool {
    let d = n.doubleValue
    return d.isFinite && d.rounded() == d
}

// Which media file to splice: a pure, table-testable decision with its reason.
import Foundation

/// What the splicer can use and would like: MIME types, output size, target bitrate, mezzanine policy.
public struct MediaSelectionPreferences: Sendable, Hashable {
    /// MIME types the pipeline decodes, in order of preference (like IMA's `mimeTypes`).
    public var mimeTypes: [String]
    /// Output frame width, when known.
    public var outputWidth: Int?
    /// Output frame height, when known.
    public var outputHeight: Int?
    /// Target bitrate in kbit/s (like IMA's `bitrate`): the highest at or below it wins, else the lowest above.
    /// Nil picks the highest bitrate.
    public var targetBitrate: Int?
    /// Use a Mezzanine (raw source for transcoding) when one of a usable type is present.
    public var preferMezzanine: Bool
    /// Accept `streaming` delivery (HLS/DASH) when no progressive file fits.
    public var allowStreaming: Bool
    /// Accept local files (`file://` URLs, paths): false for media named by a network document,
    /// which may never make Interlude read a local file (the stitch refuses them too, with 403).
    public var allowLocalFiles: Bool

    /// What an FFmpeg pipeline decodes: MP4 first, then other containers FFmpeg reads; no Flash/VPAID.
    public static let defaultMimeTypes = [
        "video/mp4", "video/x-m4v", "video/quicktime", "video/webm", "video/3gpp", "video/mp2t", "video/ogg",
        "application/x-mpegurl", "application/vnd.apple.mpegurl", "audio/mp4", "audio/mpeg", "audio/aac",
    ]

    /// Preferences with the given values (defaults: FFmpeg-decodable types, no size, highest bitrate, mezzanine preferred).
    public init(mimeTypes: [String] = MediaSelectionPreferences.defaultMimeTypes, outputWidth: Int? = nil,
                outputHeight: Int? = nil, targetBitrate: Int? = nil, preferMezzanine: Bool = true,
                allowStreaming: Bool = true, allowLocalFiles: Bool = true) {
        self.mimeTypes = mimeTypes.map { $0.lowercased() }
        self.outputWidth = outputWidth
        self.outputHeight = outputHeight
        self.targetBitrate = targetBitrate
        self.preferMezzanine = preferMezzanine
        self.allowStreaming = allowStreaming
        self.allowLocalFiles = allowLocalFiles
    }
}

/// The outcome of media-file selection: the file (or none), why, and what was rejected.
public struct MediaSelection: Sendable, Hashable {
    /// The chosen file (a MediaFile or a Mezzanine), nil when nothing fits.
    public var chosen: MediaFile?
    /// One line saying why this file (or why none).
    public var reason: String
    /// Files not considered, with the reason for each.
    public var rejected: [Rejection]
    /// 403 when nothing fits; nil otherwise.
    public var errorCode: VASTErrorCode?

    /// A file that was skipped and why.
    public struct Rejection: Sendable, Hashable {
        /// The file's URL.
        public var url: URLTemplate
        /// Why it was skipped.
        public var reason: String
    }
}

/// Chooses the media file to splice. Pure: same input, same answer.
///
/// Rules, in order: drop files without a URL; drop executable creatives (`apiFramework` VPAID/SIMID,
/// JavaScript, Flash);
/// drop MIME types the pipeline cannot decode; prefer a usable Mezzanine when asked; then rank
/// progressive before streaming, MP4 before other containers (then the `mimeTypes` order), H.264
/// before other codecs, closest to the output size, closest to the target bitrate, document order.
public enum MediaFileSelector {
    /// Selects from a Linear's media files and mezzanines.
    public static func select(mediaFiles: [MediaFile], mezzanines: [MediaFile] = [],
                              preferences: MediaSelectionPreferences = MediaSelectionPreferences()) -> MediaSelection {
        var rejected: [MediaSelection.Rejection] = []
        let usable = filter(mediaFiles, preferences: preferences, rejected: &rejected)
        let usableMezzanines = filter(mezzanines, preferences: preferences, rejected: &rejected)

        if preferences.preferMezzanine, let best = rank(usableMezzanines, preferences: preferences).first {
            return MediaSelection(chosen: best, reason: "mezzanine \(describe(best)): source for transcoding preferred",
                                  rejected: rejected, errorCode: nil)
        }
        let ranked = rank(usable, preferences: preferences)
        guard let best = ranked.first else {
            let why: String
            if mediaFiles.isEmpty && mezzanines.isEmpty {
                why = "no media files"
            } else {
                let reasons = Set(rejected.map(\.reason)).sorted().joined(separator: "; ")
                why = "none of \(mediaFiles.count + mezzanines.count) files fit (\(reasons))"
            }
            return MediaSelection(chosen: nil, reason: why, rejected: rejected, errorCode: .noSupportedMediaFile)
        }
        var criteria: [String] = []
        if best.delivery != "streaming" { criteria.append("progressive") }
        if isMP4(best) { criteria.append("MP4") }
        if let w = preferences.outputWidth, let h = preferences.outputHeight { criteria.append("closest to \(w)x\(h)") }
        if let t = preferences.targetBitrate { criteria.append("bitrate nearest \(t) kbps") } else { criteria.append("highest bitrate") }
        let reason = "\(describe(best)): \(criteria.joined(separator: ", ")) of \(usable.count) usable"
            + (rejected.isEmpty ? "" : ", \(rejected.count) skipped")
        return MediaSelection(chosen: best, reason: reason, rejected: rejected, errorCode: nil)
    }

    static func filter(_ files: [MediaFile], preferences: MediaSelectionPreferences,
                       rejected: inout [MediaSelection.Rejection]) -> [MediaFile] {
        files.filter { f in
            if let why = unusableReason(f, preferences: preferences) {
                rejected.append(.init(url: f.url, reason: why))
                return false
            }
            return true
        }
    }

    /// Why a file cannot be spliced, or nil when it can.
    public static func unusableReason(_ f: MediaFile, preferences: MediaSelectionPreferences) -> String? {
        let type = f.type ?? inferType(f.url.template)
        if !f.url.isUsable { return "no URL" }
        if let scheme = mediaScheme(f), !["http", "https", "file"].contains(scheme) {
            // FFmpeg's other protocols (subfile:, concat:, pipe:, data:, ftp://, …) read what no
            // ad server should name: refused here, before anything opens them
            return "URL scheme '\(Printable.escaped(scheme))' refused (only http, https and local files)"
        }
        if !preferences.allowLocalFiles {
            let u = f.url.template.trimmingCharacters(in: .whitespacesAndNewlines)
            let scheme = URL(string: u)?.scheme?.lowercased()
            if scheme == nil || scheme == "file" { return "local file named by a network document" }
        }
        if let api = f.apiFramework?.lowercased(), api.contains("vpaid") || api.contains("simid") {
            return "executable creative (\(api))"
        }
        // A Mezzanine is source video by definition: without a type, FFmpeg probes it.
        guard let type else { return f.isMezzanine ? nil : "unknown MIME type" }
        if type.contains("javascript") || type.contains("shockwave") || type.contains("flash") || type.contains("vpaid") {
            return "executable creative (\(type))"
        }
        if !preferences.mimeTypes.contains(type) { return "MIME type \(type) not decodable" }
        if f.delivery == "streaming" && !preferences.allowStreaming { return "streaming delivery not accepted" }
        return nil
    }

    /// The lowercased scheme of a media file's URL; nil for a plain path. A Windows-style drive
    /// letter is not a scheme FFmpeg knows either, so it is refused with the rest.
    static func mediaScheme(_ f: MediaFile) -> String? {
        let u = f.url.template.trimmingCharacters(in: .whitespacesAndNewlines)
        if let scheme = URL(string: u)?.scheme { return scheme.lowercased() }
        // URL(string:) gives up on some strings FFmpeg would still read as protocol:rest
        guard let colon = u.firstIndex(of: ":"), !u[..<colon].contains("/") else { return nil }
        let head = u[..<colon]
        guard let first = head.first, first.isLetter, head.allSatisfy({ $0.isLetter || $0.isNumber || "+-.".contains($0) }) else { return nil }
        return head.lowercased()
    }

    static func rank(_ files: [MediaFile], preferences p: MediaSelectionPreferences) -> [MediaFile] {
        let keyed = files.enumerated().map { (index, f) -> ([Int], MediaFile) in
            let type = f.type ?? inferType(f.url.template) ?? ""
            let streaming = f.delivery == "streaming" || type.contains("mpegurl") || type.contains("dash") ? 1 : 0
            let typeRank = isMP4(f) ? 0 : 1 + (p.mimeTypes.firstIndex(of: type) ?? p.mimeTypes.count)
            let codec = (f.codec ?? "").lowercased()
            let codecRank = codec.isEmpty || codec.hasPrefix("avc") || codec.contains("h264") || codec.contains("264") ? 0 : 1
            var sizeDistance = 0
            if let w = p.outputWidth, let h = p.outputHeight {
                if let fw = f.width, let fh = f.height, fw > 0, fh > 0 {
                    sizeDistance = abs(fw - w) + abs(fh - h)
                } else {
                    sizeDistance = Int(Int32.max)
                }
            }
            var bitrateKey = [1, 0]
            if let b = f.effectiveBitrate, b > 0 {
                if let t = p.targetBitrate {
                    bitrateKey = b <= t ? [0, t - b] : [1, b - t]
                    bitrateKey[0] = b <= t ? 0 : 1
                } else {
                    bitrateKey = [0, -b]
                }
            } else {
                bitrateKey = [2, 0]
            }
            return ([streaming, typeRank, codecRank, sizeDistance] + bitrateKey + [index], f)
        }
        return keyed.sorted { $0.0.lexicographicallyPrecedes($1.0) }.map(\.1)
    }

    static func isMP4(_ f: MediaFile) -> Bool {
        let t = f.type ?? inferType(f.url.template) ?? ""
        return t == "video/mp4" || t == "video/x-m4v"
    }

    /// Guesses a MIME type from a URL's extension when `@type` is missing.
    static func inferType(_ url: String) -> String? {
        let path = url.split(separator: "?").first.map(String.init) ?? url
        let ext = path.split(separator: ".").last.map { $0.lowercased() } ?? ""
        switch ext {
        case "mp4", "m4v": return "video/mp4"
        case "webm": return "video/webm"
        case "mov": return "video/quicktime"
        case "m3u8": return "application/x-mpegurl"
        case "flv": return "video/x-flv"
        case "js": return "application/javascript"
        case "swf": return "application/x-shockwave-flash"
        default: return nil
        }
    }

    /// `progressive video/mp4 1280x720 @ 2000 kbps`.
    public static func describe(_ f: MediaFile) -> String {
        var s = [f.delivery ?? "progressive", f.type ?? inferType(f.url.template) ?? "?"].joined(separator: " ")
        if let w = f.width, let h = f.height { s += " \(w)x\(h)" }
        if let b = f.effectiveBitrate { s += " @ \(b) kbps" }
        if let c = f.codec { s += " (\(c))" }
        return s
    }
}

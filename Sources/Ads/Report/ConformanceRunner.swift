// Runs every document of a corpus directory through the loader, offline, and tabulates the outcome.
import Foundation

/// Loads every `.xml` under a directory (offline: network wrappers fail fast with 301) and reports
/// one row per file. Used by `interlude inspect --conformance DIR` and `scripts/conformance.sh`.
public enum ConformanceRunner {
    /// The outcome for one file.
    public struct Row: Sendable, Hashable {
        /// Path relative to the corpus directory.
        public var file: String
        /// `VAST 4.2`, `VMAP 1.0` or `-` when unreadable.
        public var version: String
        /// Ads scheduled across all breaks.
        public var ads: Int
        /// Ads with a chosen media file.
        public var mediaFiles: Int
        /// Error codes found (sorted, distinct); for an unreadable document, its one code.
        public var errorCodes: [VASTErrorCode]
        /// True when the file could not be loaded at all (AdLoadError).
        public var unreadable: Bool
        /// True for an outcome nobody expects: an undefined (900) code or a non-VAST error.
        public var unexpected: Bool
        /// The first error message, for the table.
        public var note: String
    }

    /// Runs the corpus; rows sorted by path.
    public static func run(directory: String, options: AdTagOptions) async -> [Row] {
        let root = URL(fileURLWithPath: directory).standardizedFileURL
        guard let e = FileManager.default.enumerator(at: root, includingPropertiesForKeys: nil) else { return [] }
        var files: [URL] = []
        for case let url as URL in e where url.pathExtension.lowercased() == "xml" { files.append(url) }
        files.sort { $0.path < $1.path }
        var rows: [Row] = []
        let loader = AdTagResolver(options: options)
        for url in files {
            let rel = String(url.standardizedFileURL.path.dropFirst(root.path.count)).trimmingCharacters(in: CharacterSet(charactersIn: "/"))
            var version = "-"
            if let data = FileManager.default.contents(atPath: url.path) {
                switch AdResponseParser(maxBytes: options.maxDocumentBytes).parse(data) {
                case .success(.vast(let d)): version = "VAST " + (d.version.isEmpty ? "?" : d.version)
                case .success(.vmap(let d)): version = "VMAP " + (d.version.isEmpty ? "?" : d.version)
                case .failure: break
                }
            }
            do {
                let s = try await loader.load(tag: url.path)
                let codes = Array(Set(s.errors.compactMap(\.code))).sorted()
                rows.append(Row(file: rel, version: version, ads: s.allAds.count, mediaFiles: s.allAds.filter { $0.mediaFile != nil }.count,
                                errorCodes: codes, unreadable: false, unexpected: codes.contains(.undefined),
                                note: s.errors.first?.message ?? ""))
            } catch let e as AdLoadError {
                rows.append(Row(file: rel, version: version, ads: 0, mediaFiles: 0, errorCodes: [e.code], unreadable: true,
                                unexpected: e.code == .undefined, note: e.message))
            } catch {
                rows.append(Row(file: rel, version: version, ads: 0, mediaFiles: 0, errorCodes: [], unreadable: true,
                                unexpected: true, note: "\(error)"))
            }
        }
        return rows
    }

    /// The rows as an aligned text table plus a summary.
    public static func table(_ rows: [Row]) -> String {
        let width = min(90, rows.map(\.file.count).max() ?? 10)
        func pad(_ s: String, _ w: Int) -> String {
            s.count >= w ? String(s.suffix(w)) : s + String(repeating: " ", count: w - s.count)
        }
        var out = pad("file", width) + "  " + pad("version", 9) + "  ads  media  errors\n"
        for r in rows {
            let codes = r.errorCodes.map(String.init(describing:)).joined(separator: ",")
            let status = r.unreadable ? "unreadable \(codes)" : (codes.isEmpty ? "-" : codes)
            out += pad(r.file, width) + "  " + pad(r.version, 9) + "  " + pad(String(r.ads), 3) + "  "
                + pad(String(r.mediaFiles), 5) + "  " + status + (r.unexpected ? "  UNEXPECTED: \(r.note)" : "") + "\n"
        }
        out += "\n" + summary(rows) + "\n"
        return out
    }

    /// One paragraph: how many resolved, how many unreadable, by code.
    public static func summary(_ rows: [Row]) -> String {
        let resolved = rows.filter { !$0.unreadable }
        let unreadable = rows.filter(\.unreadable)
        var byCode: [Int: Int] = [:]
        for r in unreadable { for c in r.errorCodes { byCode[c.rawValue, default: 0] += 1 } }
        var adCodes: [Int: Int] = [:]
        for r in resolved { for c in r.errorCodes { adCodes[c.rawValue, default: 0] += 1 } }
        let fmt = { (m: [Int: Int]) in m.keys.sorted().map { "\($0)×\(m[$0]!)" }.joined(separator: " ") }
        var s = "\(rows.count) files: \(resolved.count) resolved (\(resolved.filter { $0.ads > 0 }.count) with ads, "
            + "\(resolved.reduce(0) { $0 + $1.ads }) ads, \(resolved.reduce(0) { $0 + $1.mediaFiles }) with media); "
            + "\(unreadable.count) unreadable" + (byCode.isEmpty ? "" : " [\(fmt(byCode))]")
        if !adCodes.isEmpty { s += "\nerror codes in resolved files (files per code): \(fmt(adCodes))" }
        let unexpected = rows.filter(\.unexpected).count
        s += "\nunexpected: \(unexpected)"
        return s
    }
}

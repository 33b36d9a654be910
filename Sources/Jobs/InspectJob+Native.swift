// `interlude inspect RESPONSE.json` as a library call: a native response's assets, as text or JSON.
import Ads
import Foundation
import Interlude

extension InspectJob {
    /// Whether `tag` names a native response: a `.json` path or URL, or a local file starting with `{`.
    static func isNativeResponse(_ tag: String) -> Bool {
        guard let url = TagLocation.rootURL(tag) else { return false }
        if url.pathExtension.lowercased() == "json" { return true }
        guard url.isFileURL else { return false }
        // Peek without blocking: a FIFO or device is not a response (the tag loader says why).
        let fd = open(url.path, O_RDONLY | O_NONBLOCK)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var st = stat()
        guard fstat(fd, &st) == 0, st.st_mode & S_IFMT == S_IFREG else { return false }
        var head = [UInt8](repeating: 0, count: 64)
        let n = read(fd, &head, head.count)
        guard n > 0 else { return false }
        return String(decoding: head[0..<n], as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).hasPrefix("{")
    }

    /// A native response listed asset by asset (by the names of a matching format, if any);
    /// fails when the response or a format cannot be read.
    func runNative() async -> Outcome {
        let paths = nativeFormats, allowNetwork = options.allowNetwork
        var out = ""
        func print(_ line: String) { out += line + "\n" }
        var settings = NativeLoadSettings()
        settings.allowNetwork = allowNetwork
        let fixed = settings
        let loaded: Result<(NativeResponse, URL), NativeAdError>
        do throws(NativeAdError) { loaded = .success(try await NativeResponseResolver.load(tag, settings: fixed)) } catch { loaded = .failure(error) }
        let formats: [NativeFormatDefinition]
        do { formats = try paths.map { path throws(NativeAdError) in try NativeFormatFile.load(path: path).definition } } catch {
            return Outcome(output: out, error: "\(error)", succeeded: false)
        }
        let response: NativeResponse
        switch loaded {
        case .success(let r): response = r.0
        case .failure(let e):
            if json { print(JSONValue.object([("tag", .string(tag)), ("error", .string(e.message))]).serialized(pretty: true)) }
            return Outcome(output: out, error: "\(e)", succeeded: false)
        }
        let format = NativeAdAssembler.matchFormat(response, requested: formats.map(\.formatID),
                                                   known: Dictionary(formats.map { ($0.formatID, $0) }, uniquingKeysWith: { a, _ in a }))
        func name(_ id: Int) -> String? { format?.assets.first { $0.id == id }?.name }
        func describe(_ a: NativeAsset) -> (kind: String, value: String) {
            switch a.content {
            case .title(let t): return ("title", t)
            case .data(let v, let type): return ("data" + (type.map { "(type \($0))" } ?? ""), v)
            case .image(let u, let w, let h): return ("img", u + (w.flatMap { w in h.map { " \(w)x\($0)" } } ?? ""))
            case .video(let tag): return ("video", "VAST, \(tag.utf8.count) bytes")
            }
        }
        if json {
            let assets: [JSONValue] = response.assets.map { a in
                let d = describe(a)
                return .object([("id", .int(a.id)), ("name", name(a.id).map { .string($0) } ?? .null), ("kind", .string(a.kind)),
                                ("value", .string(d.value)), ("required", .bool(a.required))])
            }
            print(JSONValue.object([
                ("tag", .string(tag)), ("version", response.version.map { .string($0) } ?? .null),
                ("format", format.map { .string($0.formatID) } ?? .null), ("assets", .array(assets)),
                ("link", response.link.map { .string($0.url) } ?? .null),
                ("clickTrackers", .array((response.link?.clickTrackers ?? []).map { .string($0) })),
                ("impressionPixels", .array(response.impressionPixels.map { .string($0) })),
                ("privacy", response.privacy.map { .string($0) } ?? .null),
                ("warnings", .array(response.warnings.map { .string($0) })),
            ]).serialized(pretty: true))
            return Outcome(output: out, error: nil, succeeded: true)
        }
        print("native response \(tag) (OpenRTB Native \(response.version ?? "1.2")): \(response.assets.count) asset(s)")
        for a in response.assets {
            let d = describe(a)
            print("  asset \(a.id)\(name(a.id).map { " \"\($0)\"" } ?? "") \(d.kind)\(a.required ? " required" : ""): \(d.value)")
            if let l = a.link { print("    link \(l.url) (\(l.clickTrackers.count) click tracker(s))") }
        }
        if let l = response.link {
            print("  link \(l.url)\(l.fallback.map { ", fallback \($0)" } ?? "") (\(l.clickTrackers.count) click tracker(s))")
        } else {
            print("  no link")
        }
        print("  impression pixels: \(response.impressionPixels.count)")
        for p in response.impressionPixels { print("    \(p)") }
        print("  AdChoices (privacy): \(response.privacy ?? "none")")
        if !formats.isEmpty {
            if let format {
                let missing = format.assets.filter { response.asset(id: $0.id) == nil }.map(\.name)
                print("  format \(format.formatID)" + (missing.isEmpty ? ": every asset present" : ": missing \(missing.joined(separator: ", "))"))
            } else {
                print("  fits none of the formats \(formats.map(\.formatID).joined(separator: ", "))")
            }
        }
        for w in response.warnings { print("  warning: \(w)") }
        return Outcome(output: out, error: nil, succeeded: true)
    }
}

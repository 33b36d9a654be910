import Foundation

/// MediaTailor's playback configurations in one process (`--config FILE`): named sets of ad
/// policies, each serving some of the service's contents and live channels, with aliases for
/// player parameters; read at start and again on SIGHUP (`ServeService.reloadConfigurations`).
///
/// The file is JSON:
/// ```json
/// {"configurations": {
///   "sports": {"content": ["match", "studio"],
///              "options": {"ads": "https://[player_params.env]/vast?s=[session.id]", "bumper-start": "https://cdn/b.mp4"},
///              "aliases": {"player_params.env": {"dev": "ads-dev.example", "prod": "ads.example"}}}}}
/// ```
/// `options` are `serve`'s own options without their `--`, applied over the command line's
/// (`ServeConfig.apply`: the same checks, the same one-line errors; a list for a repeatable one),
/// limited to the ad policies (`policyOptions`); what the process itself is (address, store,
/// sources, Redis, threads) stays the command line's. A content or channel in no configuration
/// plays under the command line's policies; one may be in at most one. `aliases` map a player
/// parameter's value to the value the tag templates get (MediaTailor's configuration aliases):
/// a session whose parameter has no alias is refused (400).
public struct PlaybackConfigurations: Sendable {
    /// One configuration.
    public struct Configuration: Sendable {
        /// Its name.
        public var name: String
        /// The contents and channels it serves.
        public var contents: [String]
        /// The command line's configuration with its options applied.
        public var config: ServeConfig
        /// `player_params.NAME` → (value → alias).
        public var aliases: [String: [String: String]]

        /// `params` with each aliased parameter's value replaced; throws a one-line reason for a
        /// value that has no alias.
        public func aliased(_ params: [String: String]) throws(ServeConfig.ParseError) -> [String: String] {
            var out = params
            for (key, map) in aliases {
                let name = String(key.dropFirst("player_params.".count))
                guard let value = params[name] else { continue }
                guard let alias = map[value] else {
                    throw ServeConfig.ParseError(description: "player parameter '\(name)' value '\(value.prefix(80))' has no alias in configuration '\(self.name)'")
                }
                out[name] = alias
            }
            return out
        }
    }

    /// The configurations by name.
    public private(set) var byName: [String: Configuration] = [:]
    /// The configuration serving each content or channel.
    public private(set) var byContent: [String: Configuration] = [:]

    /// None: every content under the command line's policies.
    public static let none = PlaybackConfigurations()

    private init() {}

    /// The options a configuration may set.
    public static let policyOptions: Set<String> = [
        "ads", "ads-method", "ads-header", "ads-body", "ads-timeout", "avail-duration", "reporting", "fill-with", "clock",
        "personalization-threshold", "avail-suppression", "bumper-start", "bumper-end", "live-preroll-max", "live-preroll-ads",
        "content-segment-prefix", "ad-segment-prefix", "live-prefetch-window",
    ]

    /// The largest configuration file read.
    public static let maxFileBytes = 1 << 20

    /// The configurations of the file at `path` over `base` (the command line's).
    public static func load(file path: String, base: ServeConfig) throws(ServeConfig.ParseError) -> PlaybackConfigurations {
        let attributes = try? FileManager.default.attributesOfItem(atPath: path)
        guard attributes?[.type] as? FileAttributeType == .typeRegular else {
            throw ServeConfig.ParseError(description: "--config: '\(path)' is not a regular file")
        }
        guard let size = attributes?[.size] as? NSNumber, size.intValue <= maxFileBytes, let data = FileManager.default.contents(atPath: path) else {
            throw ServeConfig.ParseError(description: "--config: '\(path)' cannot be read or is over \(maxFileBytes) bytes")
        }
        return try parse(data, base: base)
    }

    /// The configurations in `data` (the file's JSON) over `base`.
    public static func parse(_ data: Data, base: ServeConfig) throws(ServeConfig.ParseError) -> PlaybackConfigurations {
        func fail(_ s: String) -> ServeConfig.ParseError { ServeConfig.ParseError(description: "--config: " + s) }
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { throw fail("not a JSON object") }
        guard Set(root.keys).isSubset(of: ["configurations"]), let list = root["configurations"] as? [String: Any] else {
            throw fail("the file holds one key, \"configurations\", an object of named configurations")
        }
        let known = Set((base.contents + base.lives).map(\.name))
        var out = PlaybackConfigurations()
        for name in list.keys.sorted() {
            guard !name.isEmpty, name.count <= 64, name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else {
                throw fail("configuration name '\(name.prefix(64))' may hold only letters, digits, '-' and '_'")
            }
            guard let body = list[name] as? [String: Any] else { throw fail("configuration '\(name)' is not an object") }
            guard Set(body.keys).isSubset(of: ["content", "options", "aliases"]) else {
                throw fail("configuration '\(name)': unknown key '\(Set(body.keys).subtracting(["content", "options", "aliases"]).sorted()[0])'")
            }
            guard let contents = body["content"] as? [String], !contents.isEmpty else {
                throw fail("configuration '\(name)': \"content\" is a list of the contents and channels it serves")
            }
            var options: [(name: String, value: String)] = []
            for (key, raw) in (body["options"] as? [String: Any] ?? [:]).sorted(by: { $0.key < $1.key }) {
                guard policyOptions.contains(key) else {
                    throw fail("configuration '\(name)': '\(key.prefix(40))' is not an option a configuration sets (\(policyOptions.sorted().joined(separator: ", ")))")
                }
                let values: [Any] = (raw as? [Any]).map { ServeConfig.repeatableOptions.contains("--" + key) ? $0 : [$0] } ?? [raw]
                for v in values {
                    switch v {
                    case let s as String: options.append(("--" + key, s))
                    case let n as NSNumber: options.append(("--" + key, n.stringValue))
                    default: throw fail("configuration '\(name)': \"\(key)\" takes a string or a number")
                    }
                }
            }
            if body["options"] != nil, !(body["options"] is [String: Any]) { throw fail("configuration '\(name)': \"options\" is an object") }
            var config = base
            do { try config.apply(options) } catch { throw fail("configuration '\(name)': \(error)") }
            var aliases: [String: [String: String]] = [:]
            if let raw = body["aliases"] {
                guard let map = raw as? [String: Any] else { throw fail("configuration '\(name)': \"aliases\" is an object") }
                for (key, values) in map {
                    guard key.hasPrefix("player_params."), key.count > "player_params.".count, let values = values as? [String: String] else {
                        throw fail("configuration '\(name)': an alias is \"player_params.NAME\": {\"value\": \"alias\", …}")
                    }
                    aliases[key] = values
                }
            }
            let configuration = Configuration(name: name, contents: contents, config: config, aliases: aliases)
            for c in contents {
                guard known.contains(c) else { throw fail("configuration '\(name)': no --content or --live named '\(c.prefix(64))'") }
                if let other = out.byContent[c] { throw fail("'\(c)' is in two configurations, '\(other.name)' and '\(name)'") }
                out.byContent[c] = configuration
            }
            out.byName[name] = configuration
        }
        return out
    }
}

// A small hand-written argument scanner shared by the subcommands.
import Foundation
import Timing

/// A usage error: printed as one line, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// Walks an argument list: options with values (`--crf 20` or `--crf=20`), flags and positionals.
/// `--` ends the options: every argument after it is a positional (a file named `-x.mp4`). Each
/// option may be given once, except those named `repeatable` (`--ad-break`): a second `-o` is a
/// usage error, never a silent choice of one of them.
struct ArgumentScanner {
    private var args: [String]
    private var index = 0
    private var optionsEnded = false
    private var seen: Set<String> = []
    /// Options that may be given more than once.
    let repeatable: Set<String>
    /// Short or long spellings of one option, mapped to the name its duplicate check uses.
    let aliases: [String: String]

    init(_ args: [String], repeatable: Set<String> = [], aliases: [String: String] = [:]) {
        self.args = args
        self.repeatable = repeatable
        self.aliases = aliases
    }

    /// The next raw argument, if any (`--` itself is consumed and never returned).
    mutating func next() -> String? {
        if !optionsEnded, index < args.count, args[index] == "--" { optionsEnded = true; index += 1 }
        guard index < args.count else { return nil }
        defer { index += 1 }
        return args[index]
    }

    /// The option name of `arg` as `next()` returned it (`--crf` of `--crf=20`), or "" for a
    /// positional (anything after `--`, `-` itself, or not starting with `-`). Throws when the
    /// option was given before and is not repeatable.
    mutating func name(of arg: String) throws -> String {
        guard !optionsEnded, arg.hasPrefix("-"), arg != "-" else { return "" }
        let name = optionName(arg)
        let canonical = aliases[name] ?? name
        guard repeatable.contains(canonical) || seen.insert(canonical).inserted else {
            throw UsageError("option \(name) given twice (each option once\(repeatable.isEmpty ? "" : "; only \(repeatable.sorted().joined(separator: ", ")) repeat"))")
        }
        return name
    }

    /// The value of option `name`: the part after `=` in `arg`, or the next argument.
    mutating func value(for name: String, in arg: String) throws -> String {
        if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") { return String(arg[arg.index(after: eq)...]) }
        guard index < args.count else { throw UsageError("option \(name) needs a value") }
        defer { index += 1 }
        return args[index]
    }
}

/// The spellings shared by the commands: short and long forms of one option.
let commonAliases = ["-o": "--output", "-q": "--quiet", "-v": "--verbose", "-h": "--help"]

/// Splits `--name=value` into its option name.
func optionName(_ arg: String) -> String {
    if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") { return String(arg[..<eq]) }
    return arg
}

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

/// Option values shared by the commands that encode (`stitch`, `play`), checked one way.
enum OptionValue {
    /// `--size WxH`: 16–8192 each, even (4:2:0 video).
    static func size(_ v: String) throws -> (width: Int, height: Int) {
        let parts = v.lowercased().split(separator: "x")
        guard parts.count == 2, let w = Int(parts[0]), let h = Int(parts[1]), w >= 16, h >= 16, w <= 8192, h <= 8192 else {
            throw UsageError("--size must be WxH (16-8192 each), not '\(v)'")
        }
        // 4:2:0 video needs even sizes: say so rather than round silently.
        guard w % 2 == 0, h % 2 == 0 else { throw UsageError("--size must be even in both dimensions (4:2:0 video), not '\(v)'") }
        return (w, h)
    }

    /// `--fps RATE`: 1–240, e.g. `25` or `30000/1001`.
    static func frameRate(_ v: String) throws -> Rational {
        guard let r = Rational(parsing: v), r.doubleValue >= 1, r.doubleValue <= 240 else {
            throw UsageError("--fps must be a rate from 1 to 240 such as 25 or 30000/1001, not '\(v)'")
        }
        return r
    }

    /// `--threads N` or `--encoder-threads N`: 0–64.
    static func threads(_ v: String, option: String = "--threads") throws -> Int {
        guard let n = Int(v), (0...64).contains(n) else { throw UsageError("\(option) must be 0-64, not '\(v)'") }
        return n
    }

    /// `--crf N`: 0–51.
    static func crf(_ v: String) throws -> Int {
        guard let n = Int(v), (0...51).contains(n) else { throw UsageError("--crf must be an integer from 0 to 51, not '\(v)'") }
        return n
    }

    /// `--preset NAME`: one of libx264's presets.
    static func preset(_ v: String) throws -> String {
        let presets = ["ultrafast", "superfast", "veryfast", "faster", "fast", "medium", "slow", "slower", "veryslow", "placebo"]
        guard presets.contains(v) else { throw UsageError("--preset must be one of \(presets.joined(separator: ", ")), not '\(v)'") }
        return v
    }
}

// A small hand-written argument scanner shared by the subcommands.
import Foundation

/// A usage error: printed as one line, exit status 2.
struct UsageError: Error, CustomStringConvertible {
    let description: String
    init(_ message: String) { description = message }
}

/// Walks an argument list: options with values (`--crf 20` or `--crf=20`), flags and positionals.
struct ArgumentScanner {
    private var args: [String]
    private var index = 0

    init(_ args: [String]) { self.args = args }

    /// The next raw argument, if any.
    mutating func next() -> String? {
        guard index < args.count else { return nil }
        defer { index += 1 }
        return args[index]
    }

    /// The value of option `name`: the part after `=` in `arg`, or the next argument.
    mutating func value(for name: String, in arg: String) throws -> String {
        if let eq = arg.firstIndex(of: "="), arg.hasPrefix("--") { return String(arg[arg.index(after: eq)...]) }
        guard let v = next() else { throw UsageError("option \(name) needs a value") }
        return v
    }
}

/// Splits `--name=value` into its option name.
func optionName(_ arg: String) -> String {
    if arg.hasPrefix("--"), let eq = arg.firstIndex(of: "=") { return String(arg[..<eq]) }
    return arg
}

/// Writes one line to standard error.
func printError(_ line: String) {
    FileHandle.standardError.write(Data((line + "\n").utf8))
}

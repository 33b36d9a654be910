import Foundation

/// Why the store cannot do what was asked: one line each.
public enum StoreError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No content is registered under this name.
    case unknownContent(String)
    /// The content has no rendition of this name.
    case unknownRendition(String)
    /// A LADDER string that does not parse.
    case badLadder(String)
    /// A source or request the store cannot serve (the reason).
    case unsupported(String)
    /// The store's folder cannot be used.
    case folder(String)

    /// One line.
    public var description: String {
        switch self {
        case .unknownContent(let n): return "no content named '\(n)'"
        case .unknownRendition(let n): return "no rendition named '\(n)'"
        case .badLadder(let r): return "bad ladder: \(r)"
        case .unsupported(let r): return r
        case .folder(let r): return "store folder: \(r)"
        }
    }
}

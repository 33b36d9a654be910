// URLs in VAST stay strings until their macros are expanded.

/// A tracking, error, click or tag URL exactly as the document gave it, macros unexpanded.
///
/// Real templates contain `[`, `]`, spaces and `%%`, which `URL(string:)` rejects, so they stay
/// strings until `MacroExpander.expand(_:context:)` turns them into the URL to request.
public struct URLTemplate: Sendable, Hashable, Comparable, Codable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The template text, trimmed.
    public var template: String

    /// Wraps a template string.
    public init(_ template: String) { self.template = template }

    /// Wraps a literal.
    public init(stringLiteral value: String) { self.template = value }

    /// Reads the template as one JSON string.
    public init(from decoder: any Decoder) throws { template = try decoder.singleValueContainer().decode(String.self) }

    /// Writes the template as one JSON string.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.singleValueContainer()
        try c.encode(template)
    }

    /// The template text.
    public var description: String { template }

    /// True for a template worth requesting: not empty and not `about:blank`.
    public var isUsable: Bool {
        let t = template.trimmingCharacters(in: .whitespacesAndNewlines)
        return !t.isEmpty && t.lowercased() != "about:blank"
    }

    /// Orders templates by their text.
    public static func < (lhs: URLTemplate, rhs: URLTemplate) -> Bool { lhs.template < rhs.template }
}

import Foundation

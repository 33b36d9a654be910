// A minimal, read-only XML element tree: what the VAST and VMAP parsers walk.
import Foundation

/// One XML element: local name (prefix stripped), attributes by local name, child elements and text.
///
/// Real ad documents use default namespaces and undeclared prefixes (`vmap:`, `xsi:`), so elements
/// and attributes are matched by local name only. `text` is the concatenation of the element's own
/// character data and CDATA sections, untrimmed; `trimmedText` is what the parsers use.
public struct XMLElementNode: Sendable, Hashable {
    /// Local name: `AdBreak` for `<vmap:AdBreak>`.
    public var name: String
    /// The name as written, prefix included.
    public var qualifiedName: String
    /// Attributes in document order, keyed by local name.
    public var attributes: [XMLAttribute]
    /// Child elements in document order.
    public var children: [XMLElementNode]
    /// The element's own character data and CDATA, concatenated, untrimmed.
    public var text: String
    /// Byte range of the whole element (start tag to end tag) in the source document.
    public var outerRange: Range<Int>
    /// Byte range of the element's content (between the start and end tags) in the source document.
    public var innerRange: Range<Int>

    /// Text with leading and trailing whitespace removed.
    public var trimmedText: String { text.trimmingCharacters(in: .whitespacesAndNewlines) }

    /// The value of the attribute with this local name; case-sensitive first, then case-insensitive.
    public func attribute(_ localName: String) -> String? {
        if let a = attributes.first(where: { $0.name == localName }) { return a.value }
        let lower = localName.lowercased()
        return attributes.first(where: { $0.name.lowercased() == lower })?.value
    }

    /// The first child element with this local name.
    public func child(_ localName: String) -> XMLElementNode? {
        children.first { $0.name == localName }
    }

    /// All child elements with this local name.
    public func children(_ localName: String) -> [XMLElementNode] {
        children.filter { $0.name == localName }
    }

    /// The trimmed text of the first child with this local name, nil when absent or empty.
    public func childText(_ localName: String) -> String? {
        guard let t = child(localName)?.trimmedText, !t.isEmpty else { return nil }
        return t
    }
}

/// One attribute: local name, qualified name and decoded value.
public struct XMLAttribute: Sendable, Hashable {
    /// Local name (prefix stripped).
    public var name: String
    /// Name as written.
    public var qualifiedName: String
    /// Decoded value.
    public var value: String
}

/// A parsed document: its root element plus the source bytes, for slicing raw XML (Extensions).
public struct XMLDocumentTree: Sendable {
    /// The document element.
    public var root: XMLElementNode
    /// The source, after BOM removal.
    public var source: [UInt8]

    /// The raw XML of an element, start tag to end tag.
    public func outerXML(_ node: XMLElementNode) -> String { slice(node.outerRange) }

    /// The raw XML between an element's start and end tags.
    public func innerXML(_ node: XMLElementNode) -> String { slice(node.innerRange) }

    private func slice(_ r: Range<Int>) -> String {
        guard r.lowerBound >= 0, r.upperBound <= source.count, r.lowerBound <= r.upperBound else { return "" }
        return String(decoding: source[r], as: UTF8.self)
    }
}

/// Why a document is not acceptable XML.
public struct XMLTreeError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    public var message: String
    /// 1-based line of the problem.
    public var line: Int
    /// True when the document was refused for security reasons (DTD, entity declarations, size, depth).
    public var isSecurityRejection: Bool

    /// `line N: message`.
    public var description: String { "line \(line): \(Printable.escaped(message))" }
}

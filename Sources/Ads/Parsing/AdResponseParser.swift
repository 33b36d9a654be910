// Entry point: bytes in, a VAST or VMAP document (or the VAST/VMAP error code) out.
import Foundation

/// A parsed ad response: VAST or VMAP.
public enum AdResponse: Sendable, Hashable {
    /// A `<VAST>` document.
    case vast(VASTDocument)
    /// A `<VMAP>` document.
    case vmap(VMAPDocument)
}

/// Why a response could not be used at all, with the code the spec assigns.
public struct AdParseError: Error, Sendable, Hashable, CustomStringConvertible {
    /// 100, 101, 102 (VAST) or 1000, 1001, 1002 (VMAP).
    public var code: VASTErrorCode
    /// One line for a person.
    public var message: String
    /// Whether the bytes are not XML at all (not well-formed, an unsupported encoding), as opposed
    /// to XML refused (a DTD, over the size cap) or XML that is not VAST/VMAP.
    public var isNotXML = false

    /// Makes an error.
    public init(code: VASTErrorCode, message: String) {
        self.code = code
        self.message = Printable.escaped(message)
    }

    /// `error 100: message`.
    public var description: String { "error \(code): \(message)" }
}

/// Parses ad responses: size cap and DTD refusal first, then the XML tree, then VAST or VMAP.
public struct AdResponseParser: Sendable {
    /// Largest response accepted, in bytes (default 2 MiB).
    public var maxBytes: Int

    /// A parser with a size cap.
    public init(maxBytes: Int = 2 << 20) { self.maxBytes = maxBytes }

    /// Parses a response. Never throws or traps: failures come back as `AdParseError` with their code.
    public func parse(_ data: Data) -> Result<AdResponse, AdParseError> {
        let bytes = [UInt8](data)
        let looksVMAP = AdResponseParser.looksLikeVMAP(bytes)
        let tree: XMLDocumentTree
        do {
            tree = try XMLTreeParser(maxBytes: maxBytes).parse(bytes: bytes)
        } catch {
            let code: VASTErrorCode = looksVMAP ? .vmapParsing : .xmlParsing
            var failure = AdParseError(code: code, message: "\(error.isSecurityRejection ? "refused" : "not well-formed XML"): \(error)")
            failure.isNotXML = !error.isSecurityRejection
            return .failure(failure)
        }
        let root = tree.root
        do throws(AdParseError) {
            switch root.name {
            case "VMAP":
                var p = VMAPParser(tree: tree)
                return .success(.vmap(try p.parseDocument(root)))
            case "VAST", "VideoAdServingTemplate":
                var p = VASTParser(tree: tree)
                return .success(.vast(try p.parseDocument(root)))
            default:
                let isVMAPish = root.qualifiedName.lowercased().hasPrefix("vmap:") || root.child("AdBreak") != nil
                return .failure(AdParseError(code: isVMAPish ? .vmapSchema : .schemaValidation,
                                             message: "root element <\(root.qualifiedName)> is neither <VAST> nor <VMAP>"))
            }
        } catch {
            return .failure(error)
        }
    }

    /// True when the first start tags mention VMAP (to pick 1002 over 100 for broken XML).
    static func looksLikeVMAP(_ bytes: [UInt8]) -> Bool {
        let head = String(decoding: bytes.prefix(1024), as: UTF8.self)
        return head.contains("VMAP") || head.contains(":AdBreak") || head.contains("<AdBreak")
    }
}

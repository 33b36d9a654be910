import Foundation

/// A request's path cut at its `/` bytes: the components after the leading `/`, empty ones
/// kept (`/v1//x` is `v1`, ``, `x`), each a byte range of the path, compared as bytes and made
/// a `String` only when a route needs one (a session id, a rendition).
///
/// `split` over the `String` walked grapheme clusters and made a `String` per component: a
/// sixth of a kept playlist's instructions (callgrind, issue 36), and `Substring`s of the
/// path still cost a third of that in index checks. A `/` is one byte that no other UTF-8
/// sequence contains, so the cut is the one `Character`s made but for a `/` followed by a
/// combining mark (one non-`/` cluster to them); a URL's separator is the byte (RFC 3986 §3.3).
/// Byte equality with the routes' ASCII names is `String` equality with them: no other
/// sequence is canonically equivalent to these names.
struct RoutePath {
    /// The path, its UTF-8 contiguous.
    private let path: String
    /// Each component's bytes in `path`, in order.
    private let ranges: [Range<Int>]

    /// `path` cut; nil unless it starts with `/`.
    init?(_ path: String) {
        var path = path
        path.makeContiguousUTF8()
        guard let ranges = path.utf8.withContiguousStorageIfAvailable({ bytes -> [Range<Int>]? in
            guard bytes.first == UInt8(ascii: "/") else { return nil }
            var ranges: [Range<Int>] = []
            ranges.reserveCapacity(8)
            var start = 1
            for i in 1..<bytes.count where bytes[i] == UInt8(ascii: "/") {
                ranges.append(start..<i)
                start = i + 1
            }
            ranges.append(start..<bytes.count)
            return ranges
        }), let ranges else { return nil }
        self.path = path
        self.ranges = ranges
    }

    /// How many components.
    var count: Int { ranges.count }

    /// Component `i`.
    subscript(i: Int) -> Component { Component(path: path, bytes: ranges[i]) }

    /// The components from `i` on as sent, joined by their `/`s.
    func string(from i: Int) -> String {
        i < ranges.count ? Component(path: path, bytes: ranges[i].lowerBound..<ranges[ranges.count - 1].upperBound).string : ""
    }

    /// One component of a `RoutePath`.
    struct Component {
        /// The whole path (contiguous UTF-8).
        fileprivate let path: String
        /// The component's bytes in `path`.
        fileprivate let bytes: Range<Int>

        /// The component as a `String`.
        var string: String { withBytes { String(decoding: $0, as: UTF8.self) } }

        /// Whether the component ends with `suffix`'s bytes.
        func hasSuffix(_ suffix: StaticString) -> Bool {
            let n = suffix.utf8CodeUnitCount
            return n == 0 || bytes.count >= n && withBytes { b in
                suffix.withUTF8Buffer { memcmp(b.base.baseAddress! + b.endIndex - n, $0.baseAddress!, n) == 0 }
            }
        }

        /// The component less its last `n` bytes (a suffix `hasSuffix` found), as a `String`.
        func dropping(_ n: Int) -> String { withBytes { String(decoding: $0.dropLast(n), as: UTF8.self) } }

        /// Whether the component's bytes are `name`'s.
        static func == (c: Component, name: String) -> Bool {
            var name = name
            return name.withUTF8 { n in
                n.count == c.bytes.count && c.withBytes { b in n.isEmpty || memcmp(b.base.baseAddress! + b.startIndex, n.baseAddress!, n.count) == 0 }
            }
        }

        /// A `switch` over component names.
        static func ~= (name: String, c: Component) -> Bool { c == name }

        private func withBytes<T>(_ body: (Slice<UnsafeBufferPointer<UInt8>>) -> T) -> T {
            path.utf8.withContiguousStorageIfAvailable { body($0[bytes]) }!
        }
    }
}

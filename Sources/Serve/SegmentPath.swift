/// The check a segment path from a URL passes before the store is asked for it: relative, no
/// `..` or `.` component, no empty component, no backslash or NUL, printable ASCII only. Pure.
public enum SegmentPath {
    /// Whether `path` may name a stored segment.
    public static func isValid(_ path: String) -> Bool {
        guard !path.isEmpty, path.count <= 512, !path.hasPrefix("/") else { return false }
        guard path.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\\") }) else { return false }
        return path.split(separator: "/", omittingEmptySubsequences: false).allSatisfy { $0 != "" && $0 != "." && $0 != ".." }
    }

    /// Whether `path` names an origin segment the store keeps encrypted (AES-128,
    /// `segNNNNN.aes.ts`; CMAF, `segNNNNN.enc.m4s` and its `init.enc.mp4`): sent as it came,
    /// never moved to another clock, marked or remuxed.
    public static func isEncrypted(_ path: String) -> Bool { path.hasSuffix(".aes.ts") || path.hasSuffix(".enc.m4s") || path.hasSuffix(".enc.mp4") }

    /// Whether `path` names a CMAF file an encrypted origin's content keeps as it came (`….m4s`
    /// media and `….mp4` initialization segments, not a `.ts` segment's CMAF track): sent as it
    /// came, never moved to another clock.
    public static func isKeptCMAF(_ path: String) -> Bool {
        (path.hasSuffix(".m4s") || path.hasSuffix(".mp4")) && !path.contains(".ts.")
    }
}

/// A key's life as Redis' `PX` argument: whole milliseconds, at least 1 (a `PX` of 0 is an error).
public enum RedisTTL {
    /// `seconds` as `PX`'s milliseconds.
    public static func px(_ seconds: Double) -> String { String(max(1, Int((seconds * 1000).rounded()))) }
}

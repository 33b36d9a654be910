// Why a native ad could not be loaded.

/// Why an `AdLoader` could not hand back an ad (GMA's `GADErrorCode` where one fits); one line.
public struct NativeAdError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: Int, Sendable {
        /// The request was unusable (no custom-native ad type, no format ids, a bad ad unit).
        case invalidRequest = 0
        /// The server answered with no ad.
        case noFill = 1
        /// The response or one of its assets could not be fetched.
        case networkError = 2
        /// The response was refused (malformed, over a limit, of no requested format, an unsafe URL).
        case receivedInvalidResponse = 10
    }
    /// The kind.
    public var code: Code
    /// One line for a person.
    public var message: String

    /// An error.
    public init(_ code: Code, _ message: String) { self.code = code; self.message = message }

    /// The message.
    public var description: String { message }
}

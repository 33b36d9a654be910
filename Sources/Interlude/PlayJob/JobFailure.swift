// Why a stitch, play or inspect job did not finish, as the one line a user reads.
import Foundation

/// Why a job (`StitchJob`, `PlayJob`, `InspectJob`) did not finish: one line for the user, and
/// whether the request itself is wrong (`usage`: an output that is one of the inputs, a
/// combination of options that cannot work) or the run failed (`failed`: an input that
/// cannot be read, an output that cannot be written, a stitch that failed). When a job throws,
/// none of its outputs was written. The command line maps `usage` to exit status 2 and `failed` to 1.
public struct JobFailure: Error, CustomStringConvertible, Sendable, Equatable {
    /// Which kind of failure: the request, or the run.
    package enum Kind: Sendable, Equatable {
        /// The request cannot be run as given (nothing was opened).
        case usage
        /// The run failed (nothing was written).
        case failed
    }

    /// The kind of failure.
    package let kind: Kind
    /// The one line that says what went wrong.
    public let description: String

    /// A failure of `kind` saying `message`.
    package init(_ kind: Kind, _ message: String) {
        self.kind = kind
        description = message
    }

    /// A request that cannot be run as given.
    package static func usage(_ message: String) -> JobFailure { JobFailure(.usage, message) }
    /// A run that failed.
    package static func failed(_ message: String) -> JobFailure { JobFailure(.failed, message) }
}

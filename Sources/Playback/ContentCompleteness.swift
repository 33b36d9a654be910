import Timing

/// Whether content decoded as far as its container says it reaches: frames actually decoded
/// against the declared duration. A file cut short with its index intact, or with a damaged
/// index, declares far more than it holds; stitching it silently would shorten the content and
/// move every later cue.
enum ContentCompleteness {
    /// The verdict on content that has ended.
    enum Verdict: Equatable, Sendable {
        /// Within `tolerance` of the declared duration (or the declaration is only a guess).
        case complete
        /// Decoded to `real`, more than `tolerance` short of the declaration.
        case truncated(real: MediaTime)
        /// No frame decoded at all.
        case empty
    }

    /// The shortfall allowed before content counts as truncated.
    static let tolerance = MediaTime(value: 1, timescale: 1)

    /// Judges content that ended at `real` (the end of its last decoded frame; nil when none
    /// decoded) against its `declared` duration; `guessed` declarations (from the bit rate) are
    /// not held against it.
    static func judge(declared: MediaTime, real: MediaTime?, guessed: Bool = false) -> Verdict {
        guard let real, real > .zero else { return .empty }
        if guessed { return .complete }
        return declared - real > tolerance ? .truncated(real: real) : .complete
    }
}

import Foundation

/// How ads' loudness is normalised (`--loudness`).
public enum LoudnessMode: Sendable, Equatable, CustomStringConvertible {
    /// Ads keep their own level.
    case off
    /// Each ad is gained to the content's integrated loudness.
    case auto
    /// Each ad is gained to this integrated loudness in LUFS (EBU R128: -23; ATSC A/85: -24).
    case target(Double)

    /// Parses `off`, `auto` or a level in LUFS from -40 to -5 (`-23`, `-24`); nil otherwise.
    public init?(parsing text: String) {
        switch text.lowercased() {
        case "off": self = .off
        case "auto": self = .auto
        default:
            guard let v = Double(text), v >= -40, v <= -5 else { return nil }
            self = .target(v)
        }
    }

    /// `off`, `auto` or the level.
    public var description: String {
        switch self {
        case .off: return "off"
        case .auto: return "auto"
        case .target(let v): return String(format: "%g LUFS", v)
        }
    }
}

/// What loudness normalisation did to one ad: EBU R128 integrated loudness (LUFS) of its audio
/// as decoded and after gain and true-peak limiting (measured on the samples spliced, before
/// encoding), and the true peak (dBTP) after.
package struct AdLoudness: Sendable, Equatable, Codable {
    /// Integrated loudness of the ad as decoded.
    package var input: Double
    /// The level it was gained to.
    package var target: Double
    /// Gain applied before limiting, dB.
    package var gain: Double
    /// Integrated loudness after gain and limiting.
    package var output: Double?
    /// True peak after gain and limiting, dBTP.
    package var outputTruePeak: Double?
}

/// The ceiling of the true-peak limiter, dBTP.
let loudnessCeiling = -1.0

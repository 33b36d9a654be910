import CFFmpeg

/// Every failure of the media layer: an FFmpeg call that failed (with its AVERROR text) or a
/// condition Interlude rejects. "Try again" and "end of file" are never errors; they are loop states.
public enum MediaError: Error, Equatable, CustomStringConvertible {
    /// An FFmpeg call failed: what was being done, the AVERROR code and FFmpeg's text for it.
    case ffmpeg(operation: String, code: Int32, message: String)
    /// An FFmpeg allocation returned NULL.
    case allocationFailed(String)
    /// The input has no stream of the needed kind.
    case missingStream(String)
    /// A codec, format or parameter that this build of FFmpeg or Interlude does not handle.
    case unsupported(String)

    /// One line, suitable for a CLI error message.
    public var description: String {
        switch self {
        case let .ffmpeg(operation, _, message): return "\(operation): \(message)"
        case let .allocationFailed(what): return "out of memory allocating \(what)"
        case let .missingStream(what): return what
        case let .unsupported(what): return what
        }
    }

    /// The text FFmpeg gives for an AVERROR code.
    public static func text(for code: Int32) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        av_strerror(code, &buffer, buffer.count)
        let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
        return String(decoding: bytes, as: UTF8.self)
    }
}

/// Throws `MediaError.ffmpeg` when `code` is negative; returns it otherwise.
@discardableResult
func check(_ code: Int32, _ operation: @autoclosure () -> String) throws -> Int32 {
    if code < 0 { throw MediaError.ffmpeg(operation: operation(), code: code, message: MediaError.text(for: code)) }
    return code
}

let averrorEAGAIN = interlude_averror_eagain()
let averrorEOF = interlude_averror_eof()
let noPTS = interlude_nopts()

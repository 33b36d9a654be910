import Foundation
import Media
import Playback
import Timing

/// The slate a break shows where no ad is ready: a still picture (the first frame of the slate
/// file, fitted into the rung, or black) with silence, in pieces on one clock: whole seconds
/// (piece `i` holds `[i, i+1)` s) and one remainder, so that any duration is a run of cached
/// pieces summing to it exactly. Each piece continues the previous one's MPEG-TS stream
/// (continuity counters, clock); the first starts a new one.
enum SlateMaker {
    /// Where the slate's clock starts (0.4 s): later than any decode time the encoder's B-frames
    /// put before a piece's first frame, so that no muxer moves a piece's timestamps.
    static let clockStart = MediaTime(value: 2, timescale: 5)

    /// How a slate file's picture is made: 2 since it goes through `ConformFilter` (part of the
    /// store's key of its pieces, so that older pieces are made again, not served).
    static let pictureVersion = 2

    /// The slate picture for `rendition`: the first video frame of `file` conformed to it by the
    /// engine's conform (`ConformFilter`: rotation and mirroring applied, square pixels, fitted
    /// with bars, yuv420p), or black.
    static func picture(file: String?, rendition: Rendition) throws -> Frame {
        guard let file else { return try Frame.solidYUV420(width: rendition.width, height: rendition.height, y: 16, u: 128, v: 128) }
        let demuxer = try Demuxer(url: file)
        guard let v = demuxer.bestStream(.video) else { throw StoreError.unsupported("slate \(file) has no picture") }
        demuxer.keepOnly([v])
        let decoder = try Decoder(demuxer: demuxer, streamIndex: v)
        let packet = try Packet(), frame = try Frame()
        var decoded = false
        while !decoded, try demuxer.read(into: packet) == .packet {
            guard packet.streamIndex == v else { continue }
            try decoder.send(packet)
            decoded = try decoder.receive(into: frame) == .produced
        }
        if !decoded { try decoder.send(nil); decoded = try decoder.receive(into: frame) == .produced }
        guard decoded else { throw StoreError.unsupported("slate \(file): no frame decodes") }
        let stream = demuxer.streams[v]
        let sar = frame.sampleAspectRatio ?? stream.sampleAspectRatio
        let output = OutputFormat(width: rendition.width, height: rendition.height, frameRate: rendition.frameRate ?? Rational(30, 1),
                                  sampleRate: StoreEncoding.sampleRate, channels: StoreEncoding.channels)
        guard let description = ConformFilter.description(width: frame.width, height: frame.height, sar: sar, rotation: stream.rotation,
                                                          mirrored: stream.mirrored, pixelFormat: frame.pixelFormatName, output: output) else {
            return frame
        }
        let graph = try VideoFilterGraph(like: frame, timeBase: demuxer.timeBase(of: v),
                                         sampleAspectRatio: sar.numerator > 0 ? sar : Rational(1, 1), description: description)
        try graph.push(frame)
        try graph.push(nil)
        let out = try Frame()
        guard try graph.pull(into: out) == .produced else { throw StoreError.unsupported("slate \(file): the picture does not fit") }
        return out
    }

    /// Writes the piece starting at `start` on the slate's clock lasting `length` (at most one
    /// piece, `Rendition.slatePiece`) to `output`; `previous`: the piece before it on the clock
    /// (its counters are continued), nil for the first.
    static func piece(picture: Frame, rendition: Rendition, frameRate: Rational, start: MediaTime, length: MediaTime,
                      previous: URL?, folder: URL, output: URL) throws {
        let at = start + clockStart
        let encode = try RungEncode(rendition: rendition, frameRate: frameRate, segmentTarget: MediaTime(seconds: 2),
                                    path: folder.appendingPathComponent("slate.nut").path,
                                    firstFrame: at.count(of: frameRate.period),
                                    firstSample: at.rescaled(to: Int64(StoreEncoding.sampleRate)).value, dropPriming: true,
                                    bFrames: false)   // decode times never before the content it follows (see AdTranscoder)
        let frames = Int(length.count(of: frameRate.period, rounding: .up))
        for _ in 0..<max(1, frames) { try encode.addFrame(picture) }
        encode.addSamples([[Float]](repeating: [], count: StoreEncoding.channels))
        try encode.finish(audioDuration: length)
        let written = try encode.segments(segmentTarget: MediaTime(seconds: 2), folder: folder, storePrefix: "piece",
                                          discontinuous: previous == nil, decodeDelayTicks: rendition.decodeDelayTicks ?? 0,
                                          name: { _ in "piece.ts" })
        guard written.count == 1 else { throw StoreError.unsupported("a slate piece became \(written.count) segments") }
        var data = [UInt8](try Data(contentsOf: folder.appendingPathComponent("piece.ts")))
        if let previous { TSContinuity.continuing(&data, after: TSContinuity.lastCounters([UInt8](try Data(contentsOf: previous)))) }
        try Data(data).write(to: output)
    }
}

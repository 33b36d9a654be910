import Foundation
import Media
import Timing

/// The content's other audio streams — every one besides the stream the frame loop splices (a
/// catalogue's other languages, a described-video track) — made tracks of the stitched MP4, so
/// that the stitch keeps every audio track its content has.
///
/// Each is laid on the stitch's one timeline: its own sound where content plays (content time
/// from the stitch's `TimelineMap`, read as the main track reads its stream: an `AudioTrack` at
/// the output's rate and layout with the same origin, so sample `n` of content time is the same
/// instant in every track), each ad's sound where that ad plays (an ad has one language: the same
/// sound in every track, levelled as the main track's is), silence anywhere else, to the sample
/// the main track's length. They are added once the file is finished, by one remux: the file's
/// packets copied in order, each new track encoded (AAC at the main track's bit rate) as the remux
/// reaches its time, the chapters written again, the languages kept; the file is replaced only
/// once the new one is whole. The stitch's frame loop and encoders are not touched: a content
/// with one audio stream is stitched exactly as before.
final class ContentAudioTracks {
    /// What sounds over a stretch of the output.
    struct Span: Equatable {
        enum Source: Equatable {
            /// Content, from content time `at` on.
            case content(at: MediaTime)
            /// An ad's media, from its start.
            case ad(url: String)
        }
        var start: MediaTime
        var end: MediaTime
        var source: Source
    }

    /// Most other tracks kept (each decodes the content's sound again).
    static let maxTracks = 8

    /// The audio stream of the content opened as `d` the frame loop plays (its best), and every other one.
    static func streams(of d: Demuxer) -> (main: StreamInfo?, others: [StreamInfo]) {
        let best = d.bestStream(.audio)
        return (best.map { d.streams[$0] }, d.streams.filter { $0.kind == .audio && $0.index != best && $0.channels > 0 })
    }

    /// The spans of a stitch: each content segment of `timeline`, each ad of `ads`; where an ad
    /// plays over content (a double box) the ad's sound is the main track's too, so the ad wins.
    static func spans(timeline: TimelineMap, ads: [PackagedAd]) -> [Span] {
        var out = ads.filter { $0.end > $0.start }.map { Span(start: $0.start, end: $0.end, source: .ad(url: $0.mediaFile)) }
        for s in timeline.segments where s.streamEnd > s.streamStart {
            // the parts of the segment no ad covers
            var pieces = [(s.streamStart, s.streamEnd)]
            for ad in ads {
                pieces = pieces.flatMap { a, b -> [(MediaTime, MediaTime)] in
                    guard ad.start < b, ad.end > a else { return [(a, b)] }
                    return [(a, ad.start), (ad.end, b)].filter { $0.0 < $0.1 }
                }
            }
            for (a, b) in pieces { out.append(Span(start: a, end: b, source: .content(at: s.contentStart + (a - s.streamStart)))) }
        }
        return out.sorted { $0.start < $1.start }
    }

    /// One added track: its sound made span by span, cut into AAC frames and encoded.
    private final class Track {
        let encoder: Encoder
        let stream: Int
        var framer: AudioFramer
        let content: AudioTrack
        let packet: Packet
        /// Output samples made so far.
        var made: Int64 = 0
        /// The ad playing now: its span's start and its sound.
        var ad: (start: MediaTime, audio: AudioTrack)?

        init(encoder: Encoder, stream: Int, content: AudioTrack, format: OutputFormat) throws {
            self.encoder = encoder; self.stream = stream; self.content = content
            framer = AudioFramer(channels: format.channels, sampleRate: format.sampleRate, frameSize: encoder.frameSize,
                                 interleavedS16: encoder.wantsInterleavedS16)
            packet = try Packet()
        }
    }

    private let spans: [Span]
    private let format: OutputFormat
    private let total: Int64
    private let openAd: (String) throws -> AudioTrack

    /// Tracks laid over `spans`, `total` samples each at `format`'s rate and layout; `openAd`
    /// opens an ad's sound (at its origin, levelled as the main track's).
    init(spans: [Span], format: OutputFormat, total: Int64, openAd: @escaping (String) throws -> AudioTrack) {
        self.spans = spans; self.format = format; self.total = total; self.openAd = openAd
    }

    private func sample(_ t: MediaTime) -> Int64 { t.rescaled(to: Int64(format.sampleRate), rounding: .nearest).value }

    /// Makes `track`'s sound up to output sample `target` (at most `total`) and writes the
    /// packets the encoder gives to `muxer`.
    private func make(_ track: Track, upTo target: Int64, muxer: Muxer) throws {
        let end = min(target, total)
        var buffer: [[Float]] = []
        while track.made < end {
            let at = track.made
            // the span sounding at `at` (the last starting at or before it), else silence to the next
            let span = spans.last { sample($0.start) <= at && sample($0.end) > at }
            let until = min(end, span.map { sample($0.end) } ?? spans.first { sample($0.start) > at }.map { sample($0.start) } ?? end, at + 8192)
            let count = Int(until - at)
            buffer = Array(repeating: [], count: format.channels)
            switch span?.source {
            case .content(let from)?:
                track.ad = nil
                try track.content.read(from: sample(from) + (at - sample(span!.start)), count: count, into: &buffer)
            case .ad(let url)?:
                if track.ad?.start != span!.start { track.ad = (span!.start, try openAd(url)) }
                try track.ad!.audio.read(from: at - sample(span!.start), count: count, into: &buffer)
            case nil:
                track.ad = nil
                for c in buffer.indices { buffer[c] = Array(repeating: 0, count: count) }
            }
            try track.framer.append(buffer, count: count) { frame in try encode(frame, track, muxer) }
            track.made = until
        }
    }

    /// Makes the rest of `track`'s sound and drains its encoder.
    private func finish(_ track: Track, muxer: Muxer) throws {
        try make(track, upTo: total, muxer: muxer)
        try track.framer.flush { frame in try encode(frame, track, muxer) }
        try encode(nil, track, muxer)
    }

    private func encode(_ frame: Frame?, _ track: Track, _ muxer: Muxer) throws {
        try track.encoder.send(frame)
        while try track.encoder.receive(into: track.packet) == .produced { try muxer.write(track.packet, stream: track.stream) }
    }

    /// Rewrites the finished MP4 `file` with a track per stream of `streams` (of `content`, read
    /// with `policy`, its samples at `origin` as the main track's), AAC at `bitRate`, the main
    /// track tagged `mainLanguage`, and `chapters`: into a sibling file, which then replaces it.
    func add(to file: URL, streams: [StreamInfo], mainLanguage: String?, content: String, policy: Demuxer.OpenPolicy, origin: MediaTime,
             bitRate: Int, chapters: [(title: String, start: MediaTime, end: MediaTime)]) throws {
        let out = file.deletingLastPathComponent().appendingPathComponent(".\(file.lastPathComponent).tracks.mp4")
        defer { try? FileManager.default.removeItem(at: out) }
        let input = try Demuxer(url: file.path)
        let muxer = try Muxer(url: out.path, formatName: "mp4")
        var copied: [Int: Int] = [:]
        for s in input.streams where s.kind != .other {
            copied[s.index] = try muxer.addStream(copying: s.index, of: input)
            if s.kind == .audio {
                muxer.setDefault(true, of: copied[s.index]!)
                if let mainLanguage { muxer.setLanguage(mainLanguage, of: copied[s.index]!) }
            }
        }
        var tracks: [Track] = []
        for s in streams {
            let encoder = try Encoder(audio: "aac", sampleRate: format.sampleRate, channels: format.channels, bitRate: bitRate,
                                      globalHeader: muxer.wantsGlobalHeader)
            let index = try muxer.addStream(for: encoder)
            if let language = s.language { muxer.setLanguage(language, of: index) }
            muxer.setDefault(false, of: index)
            let sound = try AudioTrack(reader: try SourceReader(url: content, wantAudio: true, wantVideo: false, policy: policy, audioStream: s.index),
                                       output: format)
            sound.origin = origin
            tracks.append(try Track(encoder: encoder, stream: index, content: sound, format: format))
        }
        try muxer.writeHeader(options: ["movflags": "+faststart"])
        for (n, c) in chapters.enumerated() { try muxer.addChapter(id: n, title: c.title, start: c.start, end: c.end) }
        let packet = try Packet()
        // the new tracks made a little ahead of the copied packets' decode time, so the muxer interleaves them
        let lead = Int64(format.sampleRate)
        while try input.read(into: packet) == .packet {
            guard let out = copied[packet.streamIndex] else { continue }
            if let dts = packet.dtsTicks ?? packet.ptsTicks {
                let tb = input.timeBase(of: packet.streamIndex)
                let at = MediaTime(value: dts * tb.numerator, timescale: tb.denominator)
                for t in tracks { try make(t, upTo: max(0, sample(at)) + lead, muxer: muxer) }
            }
            try muxer.write(packet, stream: out)
        }
        for t in tracks { try finish(t, muxer: muxer) }
        try muxer.finish()
        guard rename(out.path, file.path) == 0 else { throw MediaError.unsupported("cannot replace \(file.path): \(String(cString: strerror(errno)))") }
    }
}

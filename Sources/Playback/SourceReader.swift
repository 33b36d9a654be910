import Media
import Timing

/// Demuxes one input and decodes its chosen video and audio streams on demand. Packets of the
/// stream not being asked for are queued (compressed, small) so both can be pulled in lockstep.
final class SourceReader {
    let demuxer: Demuxer
    let video: Decoder?
    let audio: Decoder?
    private var videoQueue = PacketQueue()
    private var audioQueue = PacketQueue()
    private var demuxEnded = false
    private var videoFlushed = false
    private var audioFlushed = false
    private let scratch: Packet
    /// A read error that ended the input early (a truncated or corrupt file), if any.
    private(set) var readError: MediaError?

    /// Opens `url` under `policy`, picks its best video (unless `wantVideo` is false) and, when
    /// `wantAudio`, audio stream.
    /// `audioStream`: that audio stream rather than the best (a content's other language).
    init(url: String, wantAudio: Bool, wantVideo: Bool = true, threads: Int = 0, policy: Demuxer.OpenPolicy = .trusted,
         audioStream: Int? = nil) throws {
        let d = try Demuxer(url: url, policy: policy)
        let v = wantVideo ? d.bestStream(.video) : nil
        let a = wantAudio ? audioStream.flatMap { i in d.streams.indices.contains(i) && d.streams[i].kind == .audio ? i : nil } ?? d.bestStream(.audio) : nil
        d.keepOnly(Set([v, a].compactMap { $0 }))
        video = try v.map { try Decoder(demuxer: d, streamIndex: $0, threads: threads) }
        audio = try a.map { try Decoder(demuxer: d, streamIndex: $0, threads: 1) }
        demuxer = d
        scratch = try Packet()
    }

    /// Decodes the next video frame into `frame`; false when the stream has ended.
    func nextVideoFrame(into frame: Frame) throws -> Bool {
        guard let video else { return false }
        return try next(video, isVideo: true, into: frame)
    }

    /// Decodes the next audio frame into `frame`; false when the stream has ended.
    func nextAudioFrame(into frame: Frame) throws -> Bool {
        guard let audio else { return false }
        return try next(audio, isVideo: false, into: frame)
    }

    private func next(_ decoder: Decoder, isVideo: Bool, into frame: Frame) throws -> Bool {
        while true {
            switch try decoder.receive(into: frame) {
            case .produced: return true
            case .drained: return false
            case .needsInput:
                if let p = isVideo ? videoQueue.pop() : audioQueue.pop() {
                    try decoder.send(p)
                } else if demuxEnded {
                    if isVideo ? videoFlushed : audioFlushed { return false }
                    if isVideo { videoFlushed = true } else { audioFlushed = true }
                    try decoder.send(nil)
                } else {
                    try readPacket()
                }
            }
        }
    }

    /// Reads one packet and hands it to the queue of its stream.
    private func readPacket() throws {
        do {
            if try demuxer.read(into: scratch) == .endOfFile { demuxEnded = true; return }
        } catch let e as MediaError {
            readError = e
            demuxEnded = true
            return
        }
        let i = scratch.streamIndex
        if i == video?.stream.index { videoQueue.push(try scratch.take()) }
        else if i == audio?.stream.index { audioQueue.push(try scratch.take()) }
    }
}

/// A FIFO of compressed packets.
struct PacketQueue {
    private var items: [Packet] = []
    private var head = 0

    mutating func push(_ p: Packet) { items.append(p) }

    mutating func pop() -> Packet? {
        guard head < items.count else { return nil }
        let p = items[head]
        head += 1
        if head > 64 && head * 2 > items.count { items.removeFirst(head); head = 0 }
        return p
    }
}

import Media

/// Reads the content's video packets one GOP at a time, in decode order (a keyframe and the
/// packets up to the next one).
final class GOPReader {
    let demuxer: Demuxer
    let videoIndex: Int
    private var held: Packet?
    private var ended = false
    private let scratch: Packet

    init(url: String, videoIndex: Int) throws {
        demuxer = try Demuxer(url: url)
        self.videoIndex = videoIndex
        demuxer.keepOnly([videoIndex])
        scratch = try Packet()
    }

    /// The next GOP's packets, or nil at the end.
    func next() throws -> [Packet]? {
        var gop: [Packet] = []
        if let h = held { gop.append(h); held = nil }
        while !ended {
            if try demuxer.read(into: scratch) == .endOfFile { ended = true; break }
            guard scratch.streamIndex == videoIndex else { continue }
            let p = try scratch.take()
            if p.isKeyframe && !gop.isEmpty { held = p; break }
            gop.append(p)
        }
        return gop.isEmpty ? nil : gop
    }
}

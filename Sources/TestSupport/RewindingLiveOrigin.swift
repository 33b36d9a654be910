import Foundation
import Threads

/// A broken live HLS origin on 127.0.0.1 for the players' checks: its media sequence goes
/// backwards. A sliding window of `windowSize` segments of `LiveOriginMedia`'s rendition 0 on a
/// real-time clock (`windowSize` published at once, then one each segment duration), until the
/// `rewindAt`-th request for the playlist; that one and every later one list the window of
/// `rewind` segments earlier (an origin that failed over to one behind it), which then moves on.
/// Paths: `/live.m3u8`, segments `seg/<N>.ts` (media sequence number N).
///
public final class RewindingLiveOrigin: Sendable {
    /// The content.
    public let media: LiveOriginMedia
    private let server: HTTPTestServer

    /// Starts serving. Throws when the socket cannot be set up.
    public init(media: LiveOriginMedia, windowSize: Int = 5, rewindAt: Int = 5, rewind: Int = 3) throws {
        precondition(windowSize >= 1 && rewindAt >= 1 && rewind >= 1)
        self.media = media
        server = try HTTPTestServer()
        let core = Core(media: media, windowSize: windowSize, rewindAt: rewindAt, rewind: rewind)
        server.setHandler { request in core.respond(request.path) }
    }

    deinit { server.stop() }

    /// Stops serving. Idempotent.
    public func stop() { server.stop() }

    /// `http://127.0.0.1:PORT` + path, e.g. `url("/live.m3u8")`.
    public func url(_ path: String) -> String { server.url(path) }

    /// The state the server's handler holds: the request count is a `Locked`; the rest is immutable.
    final class Core: Sendable {
        let media: LiveOriginMedia
        let windowSize: Int, rewindAt: Int, rewind: Int
        let started = DispatchTime.now().uptimeNanoseconds
        private let playlistRequests = Locked(0)

        init(media: LiveOriginMedia, windowSize: Int, rewindAt: Int, rewind: Int) {
            self.media = media; self.windowSize = windowSize; self.rewindAt = rewindAt; self.rewind = rewind
        }

        /// How many segments are out now (the real-time clock).
        func published() -> Int {
            let elapsed = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e9
            var n = min(windowSize, media.segments.count), t = 0.0
            while n < media.segments.count {
                t += media.segments[n].duration.seconds
                if t > elapsed { break }
                n += 1
            }
            return n
        }

        /// The answer to a GET of `path`; nil: 404.
        func respond(_ path: String) -> HTTPTestServer.Response? {
            if path == "/live.m3u8" {
                let count = playlistRequests.withLock { $0 += 1; return $0 }
                var end = published()
                if count >= rewindAt { end = max(min(windowSize, end), end - rewind) }   // never fewer than a window
                let first = max(0, end - windowSize)
                var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:\(first)"]
                for n in first..<end {
                    lines += ["#EXTINF:\(LiveOrigin.decimal(media.segments[n].duration)),", "seg/\(n).ts"]
                }
                return .init(headers: ["Content-Type": "application/vnd.apple.mpegurl", "Cache-Control": "no-cache"],
                             body: Data((lines.joined(separator: "\n") + "\n").utf8))
            }
            guard path.hasPrefix("/seg/"), path.hasSuffix(".ts"), let n = Int(path.dropFirst(5).dropLast(3)),
                  n >= 0, n < published(),
                  let bytes = try? Data(contentsOf: media.renditions[0].file(n)) else { return nil }
            return .init(headers: ["Content-Type": "video/mp2t"], body: bytes)
        }
    }
}

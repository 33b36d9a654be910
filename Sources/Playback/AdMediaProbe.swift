import Foundation
import Media
import Timing

/// An ad media file that was opened and measured before the stitch: what it holds and how long it
/// really is (measured from its video packets' timestamps, never from a declared duration).
package struct AdMedia: Sendable, Equatable {
    /// The path or URL.
    package var url: String
    /// Coded picture size.
    package var width: Int
    /// Coded picture height.
    package var height: Int
    /// Frame rate as the stream declares it (informational).
    package var frameRate: Rational?
    /// Whether it has an audio stream.
    package var hasAudio: Bool
    /// Video frames (packets shown: those an edit list drops are not counted).
    package var frames: Int
    /// Measured duration: from the first frame's time to the end of the last frame.
    package var duration: MediaTime
    /// The duration its container declares, when it declares one.
    package var declaredDuration: MediaTime?
    /// The ad's identifier from its ad server (the VAST `<Ad id>`), when it came from one; an HLS
    /// package carries it in its ad markers (`X-AD-ID`), else the media file's name.
    package var adID: String?

    /// Makes a description of measured media.
    package init(url: String, width: Int, height: Int, frameRate: Rational?, hasAudio: Bool, frames: Int, duration: MediaTime,
                declaredDuration: MediaTime? = nil) {
        self.url = url; self.width = width; self.height = height; self.frameRate = frameRate
        self.hasAudio = hasAudio; self.frames = frames; self.duration = duration; self.declaredDuration = declaredDuration
    }

    /// The same media as played for the ad `id` (the VAST `<Ad id>`; nil or empty: none).
    package func identified(as id: String?) -> AdMedia {
        var m = self
        m.adID = id.flatMap { $0.isEmpty ? nil : $0 }
        return m
    }
}

/// Validates ad media and measures its real duration without decoding it all: every video packet
/// is read (timestamps, flags, sizes) and only the first frame is decoded, so an ad that cannot be
/// opened, has no video, cannot be decoded, is cut short or damaged in its container is known
/// before any of its frames are written.
package enum AdMediaProbe {
    /// Why an ad cannot be spliced, with its VAST error code.
    public struct Rejection: Error, Equatable {
        /// 401 file not found, 403 no video or unsupported (a container not allowed, a picture over
        /// `PictureBudget.ad`), 405 cannot be decoded.
        public var code: Int
        /// One-line reason.
        public var message: String
    }

    /// Measures `url`, or throws a `Rejection`.
    public static func measure(_ url: String, threads: Int = 0) throws -> AdMedia {
        if !url.contains("://") {
            var st = stat()
            guard stat(url, &st) == 0 else { throw Rejection(code: 401, message: "ad media \(url) not found") }
            // A FIFO or device would block the open or never end.
            guard st.st_mode & S_IFMT == S_IFREG else { throw Rejection(code: 403, message: "ad media \(url) is not a regular file") }
        }
        let demuxer: Demuxer
        do {
            demuxer = try Demuxer(url: url, policy: .adMedia)
        } catch MediaError.unsupported(let why) {
            throw Rejection(code: 403, message: "ad media refused: \(why)")
        } catch {
            throw Rejection(code: 405, message: "ad media \(url) cannot be opened: \(error)")
        }
        guard let video = demuxer.bestStream(.video) else {
            throw Rejection(code: 403, message: "ad media \(url) has no video stream")
        }
        let stream = demuxer.streams[video]
        let hasAudio = demuxer.bestStream(.audio) != nil
        let scan: AdPacketScan
        do {
            scan = try AdPacketScan(demuxer: demuxer, stream: video)
        } catch MediaError.unsupported(let why) {
            // a picture over the ad picture budget that only the bitstream declared
            throw Rejection(code: 403, message: "ad media refused: \(why)")
        } catch {
            throw Rejection(code: 405, message: "ad media \(url) cannot be decoded: \(error)")
        }
        if let e = scan.readError {
            throw Rejection(code: 405, message: "ad media \(url) is damaged: \(e)")
        }
        guard scan.decodedFirstFrame, scan.packets > 0, let first = scan.first, let end = scan.end else {
            throw Rejection(code: 405, message: "ad media \(url) has no decodable video frames")
        }
        if scan.corruptPackets > 0 {
            throw Rejection(code: 405, message: "ad media \(url) is damaged: \(scan.corruptPackets) incomplete video packet(s)")
        }
        let measured = (end - first).reduced
        let declared = stream.duration ?? (demuxer.durationIsGuessed ? nil : demuxer.duration)
        if let declared, measured * 2 < declared {
            throw Rejection(code: 405, message: "ad media \(url) is truncated: \(measured.seconds)s decodable of \(declared.seconds)s declared")
        }
        // Shorter by more than a frame: played as measured, and the stitch reports it (VAST 202).
        return AdMedia(url: url, width: stream.width, height: stream.height,
                       frameRate: stream.frameRate, hasAudio: hasAudio, frames: scan.packets, duration: measured,
                       declaredDuration: declared)
    }
}

import Foundation
import Interlude
import Manifest
import Testing
import Timing
import TestSupport
@testable import Playback

/// `--hls-segments cmaf`: the package of `HLSOutputTests` (same schedule; its frame, sync and
/// marker expectations are run on this package there too) as CMAF tracks addressed by HLS and
/// DASH, read as their clients read it: the boxes a CMAF track is made of, one decode clock and
/// one unbroken sound across every join, SCTE-35 splice times at the frames the segments carry,
/// an MPD the DASH schema accepts whose timeline is the segments' own, and the players.
@Suite(.serialized) struct HLSCMAFTests {
    typealias Entry = HLSOutputTests.Entry

    static func package() async throws -> URL { try await HLSOutputTests.package(.cmaf).dir }

    static func entries(_ dir: URL, _ playlist: String) throws -> [Entry] {
        HLSOutputTests.entries(try String(contentsOf: dir.appendingPathComponent(playlist), encoding: .utf8)).entries
    }

    @Test func initAndSegmentsAreTheBoxesOfOneTrackEach() async throws {
        let dir = try await Self.package()
        let video = try Self.entries(dir, "video.m3u8"), audio = try Self.entries(dir, "audio.m3u8")
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).sorted()
        let expected = video.map(\.uri) + audio.map(\.uri) + ["init-video.mp4", "init-audio.mp4", "index.m3u8", "video.m3u8", "audio.m3u8", "index.mpd"]
        #expect(Set(names) == Set(expected), "nothing else in the folder: \(names)")
        #expect(video.count == audio.count && video.count >= 15)
        for track in ["video", "audio"] {
            let top = MP4Boxes.read(try Data(contentsOf: dir.appendingPathComponent("init-\(track).mp4")))
            #expect(top.map(\.type) == ["ftyp", "moov"], "\(track)")
            let ftyp = try #require(top.first).payload
            let brands = stride(from: 0, to: ftyp.count - 3, by: 4).map { String(decoding: ftyp[$0..<$0 + 4], as: UTF8.self) }
            #expect(brands.first == "cmfc", "\(track): major brand \(brands)")
            #expect(!MP4Boxes.read(top[1].payload).contains { $0.type == "trak" && MP4Boxes.read($0.payload).contains { $0.type == "edts" } },
                    "\(track): no edit list")
            #expect(MP4Boxes.read(top[1].payload).filter { $0.type == "trak" }.count == 1, "\(track): one track")
        }
        for e in video + audio {
            let boxes = MP4Boxes.read(try Data(contentsOf: dir.appendingPathComponent(e.uri)))
            // (no `styp`: optional in CMAF and DASH, and libavformat's mp4 muxer writes none)
            #expect(["sidx", "moof"].contains(boxes.first?.type ?? "") && boxes.contains { $0.type == "moof" } && boxes.last?.type == "mdat",
                    "\(e.uri): \(boxes.map(\.type))")
            #expect(!boxes.contains { $0.type == "moov" || $0.type == "ftyp" }, "\(e.uri)")
            // every track fragment: addressed from its moof (default-base-is-moof), with its decode time (tfdt)
            for moof in boxes where moof.type == "moof" {
                for traf in MP4Boxes.read(moof.payload) where traf.type == "traf" {
                    let inner = MP4Boxes.read(traf.payload)
                    let tfhd = try #require(inner.first { $0.type == "tfhd" })
                    let flags = tfhd.payload.prefix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) } & 0xFFFFFF
                    #expect(flags & 0x020000 != 0, "\(e.uri): tfhd flags \(String(flags, radix: 16))")
                    #expect(inner.contains { $0.type == "tfdt" }, "\(e.uri)")
                }
            }
        }
    }

    @Test func oneDecodeClockAndOneUnbrokenSoundAcrossEveryJoin() async throws {
        let dir = try await Self.package()
        let audioTrack = try CMAFFiles.joined(dir, try Self.entries(dir, "audio.m3u8").map(\.uri))
        let videoTrack = try CMAFFiles.joined(dir, try Self.entries(dir, "video.m3u8").map(\.uri))
        defer { try? FileManager.default.removeItem(at: audioTrack); try? FileManager.default.removeItem(at: videoTrack) }
        // audio: every packet starts where the one before it ends, at the joins too (one AAC stream)
        let audio = try await offPool { try CMAFFiles.packetTicks(audioTrack, stream: "a:0") }
        #expect(audio.count > 2_000)
        let broken = zip(audio, audio.dropFirst()).filter { $0.pts + $0.duration != $1.pts }
        #expect(broken.isEmpty, "\(broken.count) audio packets not back to back, first \(broken.prefix(2))")
        // video: 1770 frames of 30 fps from 0 to the end, decode times rising
        let video = try await offPool { try CMAFFiles.packetTicks(videoTrack, stream: "v:0") }
        #expect(video.count == 1770)
        #expect(zip(video, video.dropFirst()).allSatisfy { $0.dts < $1.dts })
        for track in [audioTrack, videoTrack] { #expect(try await MediaVerifier.ffmpegErrors(track) == "") }
    }

    @Test func audioPlaylistMarksTheSameBreaksAsTheVideo() async throws {
        let dir = try await Self.package()
        let video = try Self.entries(dir, "video.m3u8"), audio = try Self.entries(dir, "audio.m3u8")
        func tags(_ e: [Entry]) -> [[String]] { e.map { $0.tags.filter { !$0.hasPrefix("#EXT-X-PROGRAM-DATE-TIME") && !$0.hasPrefix("#EXT-X-MAP") } } }
        #expect(tags(video) == tags(audio))
        // each audio segment is as long as the AAC frames it holds: it starts within one frame
        // (21.3 ms) of its pictures, the first one with the encoder's priming frame before them
        var videoAt = 0.0, audioAt = -1024.0 / 48_000
        for (v, a) in zip(video, audio) {
            #expect(abs(videoAt - audioAt) < 0.0214 || (v.uri == video.first?.uri && abs(videoAt - audioAt) < 0.0214 * 2), "\(v.uri) at \(videoAt) s, \(a.uri) at \(audioAt) s")
            videoAt += v.duration; audioAt += a.duration
        }
        #expect(abs(videoAt - audioAt) < 0.0214 * 2, "the sound ends \(audioAt - videoAt) s after the pictures")
        // one target for both, no segment longer than it (GStreamer warns of any EXTINF over it, rounding or not)
        func target(_ name: String) throws -> Double? {
            try String(contentsOf: dir.appendingPathComponent(name), encoding: .utf8).split(separator: "\n")
                .first { $0.hasPrefix("#EXT-X-TARGETDURATION:") }.flatMap { Double($0.split(separator: ":")[1]) }
        }
        let targets = [try target("video.m3u8"), try target("audio.m3u8")]
        #expect(targets[0] != nil && targets[0] == targets[1], "\(targets)")
        #expect((video + audio).allSatisfy { $0.duration <= targets[0] ?? 0 }, "longest \((video + audio).map(\.duration).max() ?? 0) s")
        let master = try String(contentsOf: dir.appendingPathComponent("index.m3u8"), encoding: .utf8)
        #expect(master.contains("#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID=\"audio\"") && master.contains("URI=\"audio.m3u8\""), "\(master)")
        #expect(master.contains("CODECS=\"avc1.") && master.contains(",mp4a.40.2\"") && master.contains("AUDIO=\"audio\""), "\(master)")
    }

    @Test func spliceTimesAreTheFramesTheSegmentsCarry() async throws {
        let dir = try await Self.package()
        var checked: [Double] = []
        for e in try Self.entries(dir, "video.m3u8") {
            for tag in e.tags where tag.hasPrefix("#EXT-X-DATERANGE:") {
                guard let r = tag.range(of: #"SCTE35-(OUT|IN)=0x[0-9A-Fa-f]+"#, options: .regularExpression) else { continue }
                let cue = try SCTE35Reading.decode(String(tag[r].split(separator: "=")[1]))
                // the content's B-frames: the tracks start two frames (their decode delay) after stream time 0
                #expect(abs(cue.ptsAdjustment - 2.0 / 30) < 0.000_02, "\(cue)")
                let segment = try CMAFFiles.readable(dir.appendingPathComponent(e.uri))
                defer { try? FileManager.default.removeItem(at: segment) }
                let first = try await offPool { try CMAFFiles.firstFrameSeconds(segment) }
                #expect(Int64((first * 90_000).rounded()) == cue.splicePTS, "\(e.uri): frame \(first) s, splice \(cue.ptsTime) + \(cue.ptsAdjustment) s")
                checked.append((cue.ptsTime * 1000).rounded() / 1000)
            }
        }
        // out at 0, 26.5 and 55; in at 6 and 35.5 (the last break's in has no frame after it)
        #expect(checked.sorted() == [0, 6, 26.5, 35.5, 55], "\(checked)")
    }

    @Test func theMPDIsValidAndItsTimelineIsTheSegmentsOwn() async throws {
        let dir = try await Self.package()
        let mpd = dir.appendingPathComponent("index.mpd")
        let schema = try await offPool { try DASHSchema.problems(mpd) }
        #expect(schema.isEmpty, "\(schema)")
        let text = try String(contentsOf: mpd, encoding: .utf8)
        #expect(text.contains("type=\"static\"") && text.contains("mediaPresentationDuration=\"PT59S\""), "\(text.prefix(400))")
        // every S of each track: the start and length of the segment file it names, as decoded
        for (track, stream) in [("video", "v:0"), ("audio", "a:0")] {
            let timeline = try #require(try DASHTimeline.template(mpd, media: "\(track)$Number%05d$.m4s"), "\(track)'s SegmentTemplate")
            // the period starts at the first picture: two frames (the B-frames' decode delay) into the tracks' clock
            #expect(timeline.presentationTimeOffset == timeline.timescale * 2 / 30, "\(track): \(timeline.presentationTimeOffset)")
            let files = try Self.entries(dir, "\(track).m3u8").map(\.uri)
            #expect(timeline.segments.count == files.count, "\(track)")
            for (i, (start, duration)) in timeline.segments.enumerated() where i < files.count {
                #expect(files[i] == String(format: "\(track)%05d.m4s", i + timeline.startNumber))
                let segment = try CMAFFiles.readable(dir.appendingPathComponent(files[i]))
                defer { try? FileManager.default.removeItem(at: segment) }
                let packets = try await offPool { try CMAFFiles.packetTicks(segment, stream: stream) }
                var first = packets.map(\.pts).min() ?? -1
                let end = packets.map { $0.pts + $0.duration }.max() ?? -1
                if track == "audio" {
                    // FFmpeg takes the first AAC frame of an AAC track without an edit list for
                    // priming and leaves it out: the fragment's own decode time (tfdt) is where
                    // its sound starts, one frame before the first packet FFmpeg lists
                    let tfdt = try #require(MP4Boxes.decodeTime(try Data(contentsOf: dir.appendingPathComponent(files[i]))))
                    #expect(first == tfdt + 1024, "\(files[i]): tfdt \(tfdt), first packet listed \(first)")
                    first = tfdt
                }
                // the last AAC frame is stored whole; the timeline ends where the stitch's sound does, inside it
                let last = i == timeline.segments.count - 1 && track == "audio"
                #expect(start == first && (start + duration == end || (last && end - (start + duration) < 1024)),
                        "\(files[i]): S t=\(start) d=\(duration), packets \(first)..<\(end) (timescale \(timeline.timescale))")
            }
        }
        // the breaks as SCTE-35 events at 0, 26.5 and 55 s, their sections as the playlists': out of network, the splice at the event
        let events = try DASHTimeline.scte35Events(mpd)
        #expect(events.map(\.time) == [0, 26_500, 55_000] && events.map(\.duration) == [6_000, 9_000, 4_000], "\(events)")
        for e in events {
            let cue = try SCTE35Reading.decode("0x" + e.section.map { String(format: "%02X", $0) }.joined())
            #expect(cue.outOfNetwork && Int64((cue.ptsTime * 1000).rounded()) == e.time, "\(cue)")
        }
        #expect(text.components(separatedBy: "schemeIdUri=\"urn:interlude:ad:2026\"").count == 2 && text.contains("messageData=\"mid ad-mismatched.mp4\""))
    }

    @Test(arguments: [FieldCheck.Client.ffmpeg, .gstreamer], ["index.m3u8", "index.mpd"])
    func strictClientsPlayBothManifests(client: FieldCheck.Client, manifest: String) async throws {
        let url = try await Self.package().appendingPathComponent(manifest)
        let verdict = try await offPool { try FieldCheck.check(url, with: client) }
        #expect(verdict.clean, "\(verdict.report)")
    }

    @Test func smartRenderedHEVCIsCMAFToo() async throws {
        // copied HEVC between encoded ads: its codec string from the hvcC, strict clients on both manifests
        var r = try SmartRenderHEVCTests.request("hevc-cmaf-pkg", container: .hls)
        r.hls.segmentDuration = MediaTime(seconds: 4)
        r.hls.segmentFormat = .cmaf
        let request = r
        let result = try await offPool { try Stitcher(request: request).run() }
        #expect(result.smartRendering?.used == true)
        let dir = URL(fileURLWithPath: request.output)
        let master = try String(contentsOf: dir.appendingPathComponent("index.m3u8"), encoding: .utf8)
        #expect(master.range(of: #"CODECS="(hev1|hvc1)\.1\.6\.L[0-9]+(\.[0-9A-F]+)*,mp4a\.40\.2""#, options: .regularExpression) != nil, "\(master)")
        #expect(try await offPool { try DASHSchema.problems(dir.appendingPathComponent("index.mpd")) } == [])
        for manifest in ["index.m3u8", "index.mpd"] {
            let verdict = try await offPool { try FieldCheck.check(dir.appendingPathComponent(manifest), with: .ffmpeg) }
            #expect(verdict.clean, "\(manifest): \(verdict.report)")
        }
    }

    @Test func chromiumPlaysTheHLSThrough() async throws {
        let playlist = try await Self.package().appendingPathComponent("index.m3u8")
        let verdict = try await offPool { try FieldCheck.check(playlist, with: .chromium) }
        #expect(verdict.clean, "\(verdict.report)")
    }
}

/// Top-level boxes of ISO BMFF bytes (size, type, payload), for reading what the muxer wrote.
enum MP4Boxes {
    struct Box { var type: String; var payload: Data }

    static func read(_ bytes: Data) -> [Box] {
        let data = Data(bytes)   // indices from 0
        var out: [Box] = [], at = 0
        while data.count - at >= 8 {
            var size = Int(data[at..<at + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let type = String(decoding: data[at + 4..<at + 8], as: UTF8.self)
            var header = 8
            if size == 1, data.count - at >= 16 { size = Int(data[at + 8..<at + 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }); header = 16 }
            if size == 0 { size = data.count - at }
            guard size >= header, at + size <= data.count else { break }
            out.append(Box(type: type, payload: Data(data[at + header..<at + size])))
            at += size
        }
        return out
    }
}

extension MP4Boxes {
    /// The `tfdt` of the first track fragment of a media segment.
    static func decodeTime(_ segment: Data) -> Int64? {
        for moof in read(segment) where moof.type == "moof" {
            for traf in read(moof.payload) where traf.type == "traf" {
                guard let tfdt = read(traf.payload).first(where: { $0.type == "tfdt" })?.payload, tfdt.count >= 8 else { continue }
                let bytes = tfdt[tfdt.startIndex] == 1 ? tfdt.dropFirst(4).prefix(8) : tfdt.dropFirst(4).prefix(4)
                return Int64(bytes.reduce(UInt64(0)) { $0 << 8 | UInt64($1) })
            }
        }
        return nil
    }
}

/// CMAF media segments made readable on their own: their track's initialization section before them.
enum CMAFFiles {
    /// `url` itself, or for a `.m4s` segment a temporary file of its track's initialization
    /// section (`init-video.mp4`, `init-audio.mp4`) and it.
    static func readable(_ url: URL) throws -> URL {
        guard url.pathExtension == "m4s" else { return url }
        return try joined(url.deletingLastPathComponent(), [url.lastPathComponent])
    }

    /// A temporary MP4 of the segments `names` of one track in `dir` after its initialization section.
    static func joined(_ dir: URL, _ names: [String]) throws -> URL {
        let track = names.first?.hasPrefix("audio") == true ? "audio" : "video"
        var data = try Data(contentsOf: dir.appendingPathComponent("init-\(track).mp4"))
        for n in names { data.append(try Data(contentsOf: dir.appendingPathComponent(n))) }
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("cmaf-\(UUID().uuidString.prefix(8)).mp4")
        try data.write(to: url)
        return url
    }

    /// The presentation time of the first video frame decoded from `url`, as stored (seconds).
    static func firstFrameSeconds(_ url: URL) throws -> Double {
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts_time",
                                     "-read_intervals", "%+#1", "-of", "csv=p=0", url.path])
        let text = String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").first ?? ""
        guard let t = Double(text.split(separator: ",").first ?? "") else { throw VerifierError.malformedOutput("no video frame in \(url.path)") }
        return t
    }

    /// Each packet's PTS, DTS and duration in its stream's ticks (ffprobe), in file order.
    static func packetTicks(_ url: URL, stream: String) throws -> [(pts: Int64, dts: Int64, duration: Int64)] {
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", stream, "-show_entries", "packet=pts,dts,duration", "-of", "csv=p=0", url.path])
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false).map { Int64($0) }
            guard f.count >= 3, let p = f[0], let d = f[1], let n = f[2] else { return nil }
            return (p, d, n)
        }
    }
}

import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// Frame-exact cuts of stored MPEG-TS segments (a live origin's, an ad's) and live rungs in the
/// store: the piece before a signalled PTS and the piece from it decode to exactly the segment's
/// frames, on the origin's clock, with the origin's GOPs copied where whole; a piece is made once
/// per key; a registered live rung gets ads and slate.
@Suite(.serialized) struct ServeStoreLiveCutTests {
    /// How the origin's encoder made its GOPs.
    struct Variant: Sendable, CustomTestStringConvertible {
        var bFrames: Int
        var openGOP: Bool
        var testDescription: String { "bf\(bFrames)\(openGOP ? "-open" : "")" }
    }

    static let size = PixelSize(width: 320, height: 180)
    static let rung = Rendition(name: "live180", width: 320, height: 180, videoBitrate: 400_000, audioBitrate: 96_000)
    static let wrap: Int64 = 1 << 33

    /// 12 s of source 9 (320x180, 30 fps, a keyframe every 2 s, AAC 48 kHz stereo) as one MPEG-TS
    /// stream, made once by the ffmpeg CLI.
    static func stream(_ v: Variant) throws -> URL {
        let seconds = 12.0
        var args = ["-f", "lavfi", "-i", TestMedia.videoGraph(sourceID: 9, width: 320, height: 180, fps: 30, seconds: seconds),
                    "-f", "lavfi", "-i", TestMedia.audioGraph(sampleRate: 48_000, channels: 2, fps: 30, seconds: seconds),
                    "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "veryfast", "-crf", "24", "-pix_fmt", "yuv420p",
                    "-threads", "2", "-bf", "\(v.bFrames)", "-g", "60", "-keyint_min", "60", "-sc_threshold", "0"]
        if v.openGOP { args += ["-x264-params", "open-gop=1"] }
        args += ["-c:a", "aac", "-b:a", "96k", "-fflags", "+bitexact", "-f", "mpegts"]
        return try TestMedia.generated("livecut-s9-\(v.testDescription).ts", arguments: args)
    }

    /// The stream cut into 4 s segments by ffmpeg's HLS muxer (as a live origin would), on a clock
    /// moved by `offset` seconds, stored as `live/ch/v0/<n>.ts` under `root`; their store paths.
    /// `livePIDs`: the PIDs of a live encoder (PMT 480, video 481, audio 482, program 7), not FFmpeg's.
    static func segments(_ v: Variant, root: URL, offset: Double = 1000, livePIDs: Bool = false) throws -> [String] {
        let dir = root.appendingPathComponent("live/ch/v0")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Tools.ffmpeg(["-v", "error", "-y", "-i", try stream(v).path, "-map", "0", "-c", "copy", "-output_ts_offset", String(offset)]
                         + (livePIDs ? ["-streamid", "0:481", "-streamid", "1:482", "-hls_ts_options", "mpegts_pmt_start_pid=480:mpegts_service_id=7"] : [])
                         + [
                          "-f", "hls", "-hls_time", "4", "-hls_list_size", "0", "-hls_segment_filename", dir.path + "/%d.ts",
                          root.appendingPathComponent("origin.m3u8").path])
        let names = try FileManager.default.contentsOfDirectory(atPath: dir.path).filter { $0.hasSuffix(".ts") }
        return (0..<names.count).map { "live/ch/v0/\($0).ts" }
    }

    static func url(_ root: URL, _ path: String) -> URL { root.appendingPathComponent(path) }

    /// `files` one after another in a new file.
    static func joined(_ files: [URL], into root: URL, name: String) throws -> URL {
        var data = Data()
        for f in files { data.append(try Data(contentsOf: f)) }
        let out = root.appendingPathComponent(name)
        try data.write(to: out)
        return out
    }

    /// The relative RMS difference between the sound of `piece` and that of `origin` at the same
    /// times (`piece` starts at `at`, `origin`'s first packet at `originFirst`, 90 kHz), over
    /// the piece's sound but its first and last AAC frame.
    static func soundDifference(origin: URL, originFirst: Int64, piece: URL, at: Int64) throws -> Double {
        func pcm(_ url: URL) throws -> [Float] {
            let out = try Tools.ffmpeg(["-v", "error", "-i", url.path, "-map", "0:a:0", "-ac", "1", "-f", "f32le", "-"])
            return out.stdout.withUnsafeBytes { Array($0.bindMemory(to: Float.self)) }
        }
        let (o, p) = (try pcm(origin), try pcm(piece))
        let offset = Int(((at - originFirst) * 48_000 + 45_000) / 90_000)
        var diff = 0.0, power = 0.0
        for i in 1024..<max(1024, p.count - 1024) where offset + i < o.count {
            let d = Double(p[i] - o[offset + i]); diff += d * d; power += Double(o[offset + i]) * Double(o[offset + i])
        }
        return power > 0 ? (diff / power).squareRoot() : 1
    }

    /// The first stream of `kind`'s packets (ffprobe, 90 kHz ticks): pts, duration, key flag, in file order.
    static func packets(_ url: URL, _ kind: String) throws -> [(pts: Int64, duration: Int64, key: Bool)] {
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", "\(kind):0", "-show_entries", "packet=pts,duration,flags",
                                     "-of", "csv=p=0", url.path])
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { line in
            let f = line.split(separator: ",", omittingEmptySubsequences: false)
            guard f.count >= 3, let pts = Int64(f[0]) else { return nil }
            return (pts, Int64(f[1]) ?? 0, f[2].contains("K"))
        }
    }

    /// What `ffmpeg -v error -xerror` says decoding `url` (empty: nothing).
    static func strictErrors(_ url: URL) -> String {
        do {
            let out = try Tools.ffmpeg(["-v", "error", "-xerror", "-i", url.path, "-f", "null", "-"])
            return out.stderr.trimmingCharacters(in: .whitespacesAndNewlines)
        } catch {
            return "\(error)"
        }
    }

    static func ids(_ url: URL) throws -> [Int?] {
        try MediaVerifier.videoFrames(url, reader: IdentityReader(output: size, sources: [])).map { $0.identity?.frameIndex }
    }

    static func seconds(_ ticks: Int64) -> MediaTime { MediaTime(value: ticks, timescale: 90_000).reduced }

    /// A playlist of runs (an `EXT-X-DISCONTINUITY` between runs) over files copied into `root/name`.
    static func playlist(_ runs: [[(URL, MediaTime)]], root: URL, name: String) throws -> URL {
        let folder = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:5", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for (i, run) in runs.enumerated() {
            if i > 0 { lines.append("#EXT-X-DISCONTINUITY") }
            for (j, (file, duration)) in run.enumerated() {
                try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent("r\(i)s\(j).ts"))
                lines += [String(format: "#EXTINF:%.6f,", duration.seconds), "r\(i)s\(j).ts"]
            }
        }
        lines.append("#EXT-X-ENDLIST")
        let url = folder.appendingPathComponent("index.m3u8")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test(arguments: [Variant(bFrames: 0, openGOP: false), Variant(bFrames: 2, openGOP: false), Variant(bFrames: 2, openGOP: true)])
    func aCutInsideAGOPAndOnAKeyframeKeepsEveryFrameOnce(_ v: Variant) async throws {
        let root = StoreFixture.folder("livecut-\(v.testDescription)")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try MediaStore(options: StoreOptions(root: root, contents: [:]))
        let paths = try await offPool { try Self.segments(v, root: root) }
        #expect(paths.count == 3)
        let (seg0, seg1, seg2) = (Self.url(root, paths[0]), Self.url(root, paths[1]), Self.url(root, paths[2]))
        let video = try Self.packets(seg1, "v")
        let pts = video.map(\.pts).sorted()
        let period: Int64 = 3000
        let reference = try await offPool { try Self.ids(try Self.joined([seg0, seg1, seg2], into: root, name: "ref.ts")) }
        let n0 = try Self.packets(seg0, "v").count
        #expect(reference.count == n0 + pts.count + (try Self.packets(seg2, "v").count))
        #expect(reference.allSatisfy { $0 != nil })
        let keyframes = video.filter(\.key).map(\.pts)
        #expect(keyframes.count == 2, "4 s segments of 2 s GOPs")
        // a cut inside the first GOP (its 47th frame shown) and one on the second keyframe
        for (label, cut) in [("mid", pts[47]), ("key", keyframes[1])] {
            let k = pts.firstIndex(of: cut)!
            guard let before = try await store.segmentPiece(paths[1], rendition: Self.rung, from: nil, to: cut),
                  let after = try await store.segmentPiece(paths[1], rendition: Self.rung, from: cut, to: nil) else {
                Issue.record("\(label): no piece"); return
            }
            #expect(before.path.hasPrefix("cuts/live/live/ch/v0/1-") && after.path.hasPrefix("cuts/live/live/ch/v0/1-"))
            #expect(before.duration == Self.seconds(cut - pts[0]), "\(label)")
            #expect(after.duration == Self.seconds(pts[pts.count - 1] + period - cut), "\(label)")
            let (b, a) = (Self.url(root, before.path), Self.url(root, after.path))
            // the frames: the segment's, each once, in order, the after-piece from the cut frame
            let head = try await offPool { try Self.ids(try Self.joined([seg0, b], into: root, name: "\(label)-head.ts")) }
            #expect(head == Array(reference.prefix(n0 + k)), "\(label): seg0 + before = the frames up to the one before the cut")
            if !v.openGOP {
                // a closed GOP's piece decodes alone
                #expect(try Self.ids(b) == Array(reference[n0..<(n0 + k)]))
            }
            if !v.openGOP {
                // An open GOP's after-piece is encoded again to the segment's end; the next origin
                // segment's leading frames refer to the origin's last frames, which the piece no
                // longer has: FFmpeg drops frames there (a limitation of open-GOP origins).
                let tail = try await offPool { try Self.ids(try Self.joined([a, seg2], into: root, name: "\(label)-tail.ts")) }
                #expect(tail == Array(reference.suffix(from: n0 + k)), "\(label): after + seg2 = the frames from the cut on")
            }
            let afterFrames = try await MediaVerifier.videoFrames(a, reader: IdentityReader(output: Self.size, sources: []))
            #expect(afterFrames.map { $0.identity?.frameIndex } == Array(reference[(n0 + k)..<(n0 + pts.count)]))
            #expect(afterFrames.first?.isKey == true, "the after-piece starts on a keyframe")
            // on the origin's clock: the after-piece's first frame at the cut PTS (modulo 2^33)
            #expect(try HLSPackageCheck.firstVideoFramePTS(a) == cut % Self.wrap)
            #expect(try Self.packets(b, "v").map(\.pts).max() == pts[k - 1], "the before-piece's last frame is the one before the cut")
            // audio: before the cut the origin's packets that start before it (the one across it
            // too); after it the origin's sound from the cut itself (`CutSound`): its first frame
            // at the cut's PTS, frames back to back, to the origin's last sound (and under one
            // frame past it), the same samples as the origin's at the same times
            let originAudio = try Self.packets(seg1, "a")
            let (ba, aa) = (try Self.packets(b, "a"), try Self.packets(a, "a"))
            let originStarts = Set(originAudio.map(\.pts))
            #expect(!ba.isEmpty && !aa.isEmpty)
            #expect(ba.allSatisfy { originStarts.contains($0.pts) && $0.pts < cut })
            #expect(ba.count == originAudio.filter { $0.pts < cut }.count, "no packet before the cut left out")
            #expect(abs((aa.first?.pts ?? 0) - cut) <= 1, "\(label): the after-piece's sound starts at its first picture: \(aa.first?.pts ?? 0) vs \(cut)")
            #expect(zip(aa, aa.dropFirst()).allSatisfy { abs($1.pts - $0.pts - 1920) <= 1 }, "\(label): AAC frames back to back")
            let originEnd = (originAudio.last?.pts ?? 0) + (originAudio.last?.duration ?? 0)
            let pieceEnd = (aa.last?.pts ?? 0) + (aa.last?.duration ?? 0)
            #expect(pieceEnd >= originEnd - 1 && pieceEnd < originEnd + 1920, "\(label): to the origin's last sound: \(pieceEnd) vs \(originEnd)")
            let drift = try await offPool { try Self.soundDifference(origin: seg1, originFirst: try #require(originAudio.first?.pts), piece: a, at: cut) }
            #expect(drift < 0.05, "\(label): the after-piece's sound against the origin's at the same times: relative difference \(drift)")
            // strict decoding: seg0 + before continues one stream; after + seg2 too
            if !v.openGOP {
                #expect(Self.strictErrors(try Self.joined([seg0, b], into: root, name: "\(label)-h.ts")) == "")
                #expect(Self.strictErrors(try Self.joined([a, seg2], into: root, name: "\(label)-t.ts")) == "")
                let list = try Self.playlist([[(seg0, MediaTime(seconds: 4)), (b, before.duration)], [(a, after.duration), (seg2, MediaTime(seconds: 4))]],
                                             root: root, name: "\(label)-play")
                #expect(try HLSPackageCheck.continuityProblems(list) == [])
                let problems = try await HLSPackageCheck.clientProblems(list)
                #expect(problems.isEmpty, "\(label): \(problems.joined(separator: "\n"))")
                // copied GOPs are the origin's packets, decoding to the origin's pictures
                let originMD5 = try StoreFixture.videoPacketMD5s(seg1, mp4: false)
                let (beforeMD5, afterMD5) = (try StoreFixture.videoPacketMD5s(b, mp4: false), try StoreFixture.videoPacketMD5s(a, mp4: false))
                #expect(afterMD5.suffix(60) == originMD5.suffix(60), "\(label): the second GOP is copied")
                if label == "key" {
                    #expect(beforeMD5 == Array(originMD5.prefix(60)) && afterMD5 == Array(originMD5.suffix(60)), "a keyframe cut copies both GOPs")
                } else {
                    #expect(beforeMD5.count == k && afterMD5.count == pts.count - k)
                    let (o, p) = (try await DecodedPictures.decode(seg1), try await DecodedPictures.decode(a))
                    #expect(o.frames.suffix(60) == p.frames.suffix(60), "the copied GOP decodes to the origin's pictures")
                }
            }
        }
    }

    @Test func aPieceIsMadeOncePerFramesAndFoundAgain() async throws {
        let root = StoreFixture.folder("livecut-once")
        defer { try? FileManager.default.removeItem(at: root) }
        let v = Variant(bFrames: 2, openGOP: false)
        let store = try MediaStore(options: StoreOptions(root: root, contents: [:]))
        let paths = try await offPool { try Self.segments(v, root: root) }
        let pts = try Self.packets(Self.url(root, paths[1]), "v").map(\.pts).sorted()
        let cut = pts[50]
        // two concurrent callers, bounds naming the same frame: one encode
        async let first = store.segmentPiece(paths[1], rendition: Self.rung, from: cut, to: nil)
        async let second = store.segmentPiece(paths[1], rendition: Self.rung, from: cut - 1500, to: nil)
        let (x, y) = try await (first, second)
        #expect(x != nil && x == y)
        #expect(store.encodeCounts()["cut"] == 1)
        // the same cut with the bound unwrapped past 2^33, and again: found
        let z = try await store.segmentPiece(paths[1], rendition: Self.rung, from: cut + Self.wrap, to: nil)
        #expect(z == x)
        #expect(store.encodeCounts()["cut"] == 1)
        // the whole segment is the segment; empty ranges are nil
        let whole = try await store.segmentPiece(paths[1], rendition: Self.rung, from: pts[0] - 100, to: nil)
        #expect(whole == StoredSegment(path: paths[1], duration: MediaTime(seconds: 4)))
        #expect(try await store.segmentPiece(paths[1], rendition: Self.rung, from: pts[pts.count - 1] + 1, to: nil) == nil)
        #expect(try await store.segmentPiece(paths[1], rendition: Self.rung, from: cut, to: cut - 10) == nil)
        #expect(try await store.segmentPiece(paths[1], rendition: Self.rung, from: nil, to: pts[0]) == nil)
        // a middle piece: both bounds inside the segment
        let middle = try await store.segmentPiece(paths[1], rendition: Self.rung, from: pts[10], to: pts[100])
        #expect(middle?.duration == MediaTime(value: 90, timescale: 30))
        if let middle {
            let ids = try Self.ids(Self.url(root, middle.path))
            let first = try #require(try Self.ids(Self.url(root, paths[1])).first ?? nil)
            #expect(ids == (first + 10..<first + 100).map { Optional($0) })
            #expect(Self.strictErrors(Self.url(root, middle.path)) == "")
        }
        #expect(store.encodeCounts()["cut"] == 2)
        // not a stored segment
        await #expect(throws: StoreError.self) { try await store.segmentPiece("live/ch/v0/99.ts", rendition: Self.rung, from: nil, to: cut) }
        await #expect(throws: StoreError.self) { try await store.segmentPiece("../x.ts", rendition: Self.rung, from: nil, to: cut) }
        // another process (a restart) finds the pieces in the folder
        let reopened = try MediaStore(options: StoreOptions(root: root, contents: [:]))
        #expect(try await reopened.segmentPiece(paths[1], rendition: Self.rung, from: cut, to: nil) == x)
        #expect(reopened.encodeCounts()["cut"] == nil)
        // the segment left the window: its pieces go (a pinned one stays), other segments' stay
        let other = try #require(try await store.segmentPiece(paths[2], rendition: Self.rung, from: nil, to: pts[0] + 120 * 3000 + 3000 * 7))
        let middlePath = try #require(middle?.path)
        store.pin([middlePath])
        #expect(store.removeSegmentPieces(of: paths[1]) == 1)
        #expect(!FileManager.default.fileExists(atPath: Self.url(root, x!.path).path))
        #expect(FileManager.default.fileExists(atPath: Self.url(root, middlePath).path))
        #expect(FileManager.default.fileExists(atPath: Self.url(root, other.path).path))
        store.unpin([middlePath])
        #expect(store.removeSegmentPieces(of: paths[1]) == 1)
        #expect(store.file(forSegment: middlePath) == nil)
        let again = try await store.segmentPiece(paths[1], rendition: Self.rung, from: cut, to: nil)
        #expect(again == x && store.encodeCounts()["cut"] == 4, "made again once removed")
    }

    /// An origin with a live encoder's PIDs: the pieces carry them, so the stream goes on through them.
    @Test func piecesCarryTheOriginsPIDs() async throws {
        let root = StoreFixture.folder("livecut-pids")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try MediaStore(options: StoreOptions(root: root, contents: [:]))
        let paths = try await offPool { try Self.segments(Variant(bFrames: 2, openGOP: false), root: root, livePIDs: true) }
        let (seg0, seg1, seg2) = (Self.url(root, paths[0]), Self.url(root, paths[1]), Self.url(root, paths[2]))
        let pts = try Self.packets(seg1, "v").map(\.pts).sorted()
        let before = try #require(try await store.segmentPiece(paths[1], rendition: Self.rung, from: nil, to: pts[47]))
        let after = try #require(try await store.segmentPiece(paths[1], rendition: Self.rung, from: pts[47], to: nil))
        func programs(_ url: URL) throws -> String {
            String(decoding: try Tools.ffprobe(["-v", "error", "-show_entries", "program=program_id,pmt_pid,pcr_pid:stream=id,codec_type",
                                                "-of", "compact", url.path]).stdout, as: UTF8.self)
        }
        let origin = try programs(seg1)
        #expect(origin.contains("program_id=7|pmt_pid=480|pcr_pid=481") && origin.contains("id=0x1e1") && origin.contains("id=0x1e2"))
        for piece in [before, after] {
            let mine = try programs(Self.url(root, piece.path))
            #expect(mine == origin, "\(piece.path): the origin's program, PMT and PIDs: \(mine) vs \(origin)")
        }
        let reference = try Self.ids(try Self.joined([seg0, seg1, seg2], into: root, name: "ref.ts"))
        let joined = try Self.joined([seg0, Self.url(root, before.path), Self.url(root, after.path), seg2], into: root, name: "all.ts")
        #expect(try Self.ids(joined) == reference)
        #expect(Self.strictErrors(try Self.joined([seg0, Self.url(root, before.path)], into: root, name: "h.ts")) == "")
        #expect(Self.strictErrors(try Self.joined([Self.url(root, after.path), seg2], into: root, name: "t.ts")) == "")
        let list = try Self.playlist([[(seg0, MediaTime(seconds: 4)), (Self.url(root, before.path), before.duration)],
                                      [(Self.url(root, after.path), after.duration), (seg2, MediaTime(seconds: 4))]], root: root, name: "play")
        #expect(try HLSPackageCheck.continuityProblems(list) == [])
        let problems = try await HLSPackageCheck.clientProblems(list)
        #expect(problems.isEmpty, "\(problems.joined(separator: "\n"))")
    }

    /// A segment whose clock wraps (2^33 ticks, 26.5 h) inside it: bounds modulo 2^33 or unwrapped.
    @Test func boundsCompareModuloTwoToThe33() async throws {
        let root = StoreFixture.folder("livecut-wrap")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try MediaStore(options: StoreOptions(root: root, contents: [:]))
        // the clock starts 1 s before it wraps: segment 0 wraps after 1 s
        let paths = try await offPool { try Self.segments(Variant(bFrames: 2, openGOP: false), root: root, offset: Double(Self.wrap) / 90_000 - 2.4) }
        let (seg0, seg1) = (Self.url(root, paths[0]), Self.url(root, paths[1]))
        let raw = try Self.packets(seg0, "v").map(\.pts)
        let mod = { (t: Int64) in ((t % Self.wrap) + Self.wrap) % Self.wrap }
        #expect(raw.contains { mod($0) > Self.wrap - 200_000 } && raw.contains { mod($0) < 200_000 }, "the segment's PTS wrap")
        let first = mod(try HLSPackageCheck.firstVideoFramePTS(seg0))
        let cut = first + 70 * 3000   // frame 70, after the wrap: its PTS is small modulo 2^33
        #expect(cut > Self.wrap)
        let reference = try Self.ids(try Self.joined([seg0, seg1], into: root, name: "ref.ts"))
        for from in [cut, cut - Self.wrap] {
            let after = try #require(try await store.segmentPiece(paths[0], rendition: Self.rung, from: from, to: nil))
            let before = try #require(try await store.segmentPiece(paths[0], rendition: Self.rung, from: nil, to: from))
            #expect(after.duration == MediaTime(value: 120 - 70, timescale: 30) && before.duration == MediaTime(value: 70, timescale: 30))
            let a = Self.url(root, after.path), b = Self.url(root, before.path)
            #expect(mod(try HLSPackageCheck.firstVideoFramePTS(a)) == cut - Self.wrap)
            #expect(try Self.ids(b) == Array(reference.prefix(70)))
            #expect(try Self.ids(try Self.joined([a, seg1], into: root, name: "tail.ts")) == Array(reference.suffix(from: 70)))
            #expect(Self.strictErrors(try Self.joined([a, seg1], into: root, name: "tail.ts")) == "")
        }
        #expect(store.encodeCounts()["cut"] == 2, "both forms of the bound name the same two pieces")
    }

    @Test func aLiveRungIsProbedRegisteredAndGetsAdsSlateAndAdCuts() async throws {
        let root = StoreFixture.folder("livecut-rung")
        defer { try? FileManager.default.removeItem(at: root) }
        var options = StoreOptions(root: root, contents: [:])
        options.segmentTarget = MediaTime(seconds: 2)
        let store = try MediaStore(options: options)
        let paths = try await offPool { try Self.segments(Variant(bFrames: 2, openGOP: false), root: root) }
        let probe = try LiveSegmentProbe.probe(Self.url(root, paths[0]))
        let level = try await Tools.ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "stream=profile,level", "-of", "csv=p=0",
                                       Self.url(root, paths[0]).path])
        let fields = String(decoding: level.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines).split(separator: ",")
        #expect(fields.first == "High")
        #expect(probe.width == 320 && probe.height == 180 && probe.frameRate == Rational(30, 1) && probe.hasAudio)
        #expect(probe.codecs == "avc1.6400" + String(format: "%02X", Int(fields.last ?? "") ?? -1) + ",mp4a.40.2", "\(probe.codecs)")
        let silent = try await TestMedia.generated("livecut-silent.ts", arguments: ["-f", "lavfi", "-i", "testsrc2=s=160x90:r=25:d=1", "-c:v", "libx264",
                                                                             "-preset", "veryfast", "-f", "mpegts"])
        let s = try LiveSegmentProbe.probe(silent)
        #expect(s.width == 160 && s.height == 90 && s.frameRate == Rational(25, 1) && !s.hasAudio && !s.codecs.contains("mp4a"))
        // registered: again is a no-op, another rung under the name is refused
        let rung = probe.rendition(name: "live180", videoBitrate: 400_000, audioBitrate: 96_000)
        #expect(rung == Self.rung)
        try store.addRendition(rung)
        try store.addRendition(rung)
        #expect(throws: StoreError.self) { try store.addRendition(Rendition(name: "live180", width: 640, height: 360, videoBitrate: 1_000_000, audioBitrate: 96_000)) }
        // slate
        let slate = try await store.slate(rendition: store.rendition(named: "live180")!, duration: MediaTime(value: 5, timescale: 2))
        #expect(slate.reduce(MediaTime.zero) { $0 + $1.duration } == MediaTime(value: 5, timescale: 2))
        let slateFile = try StoreFixture.concatenate(slate, store: store, into: root, name: "slate.ts")
        #expect(try await MediaVerifier.probe(slateFile).video?.width == 320)
        #expect(Self.strictErrors(slateFile) == "")
        // an ad transcoded to the rung
        let server = try HTTPTestServer()
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: try ServeStoreAdTests.adClip())))
        let ready = try await ServeStoreAdTests.settled(store, server.url("/ad.mp4"), "live180")
        guard case .ready(let segments, let duration) = ready else { Issue.record("the ad did not become ready: \(ready)"); return }
        #expect(duration == MediaTime(seconds: 2))
        let adFile = try StoreFixture.concatenate(segments, store: store, into: root, name: "ad.ts")
        let adReader = IdentityReader(output: Self.size, sources: [PixelSize(width: 240, height: 180)])
        #expect(try await MediaVerifier.videoFrames(adFile, reader: adReader).map { $0.identity?.frameIndex } == (0..<60).map { Optional($0) })
        // an ad stopped at a frame (a break that ends early): its first 20 frames
        let adFirst = try HLSPackageCheck.firstVideoFramePTS(Self.url(root, segments[0].path))
        let stop = try #require(try await store.segmentPiece(segments[0].path, rendition: rung, from: nil, to: adFirst + 20 * 3000))
        #expect(stop.path.hasPrefix("cuts/live/ads/"))
        #expect(stop.duration == MediaTime(value: 20, timescale: 30))
        let stopFile = Self.url(root, stop.path)
        #expect(try await MediaVerifier.videoFrames(stopFile, reader: adReader).map { $0.identity?.frameIndex } == (0..<20).map { Optional($0) })
        #expect(try HLSPackageCheck.firstVideoFramePTS(stopFile) == adFirst, "the ad's own clock")
        #expect(Self.strictErrors(stopFile) == "")
        #expect(try Self.packets(stopFile, "a").allSatisfy { $0.pts < adFirst + 20 * 3000 }, "its sound to the AAC frame across the stop")
    }
}

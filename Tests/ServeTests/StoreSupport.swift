import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// What the store suites share: a generated content (4 s, 320x180 at 30 frames/s, a keyframe every
/// second, the identity band burnt in), a fresh store folder, and readers of what it wrote.
enum StoreFixture {
    static let ladder = "180p:320x180:400k,90p:160x90:150k"
    static let fps = 30
    static let frames = 120

    /// The content clip (source id 3).
    static func clip() throws -> URL {
        try TestMedia.clip(sourceID: 3, width: 320, height: 180, fps: fps, seconds: 4, gop: fps)
    }

    /// A new empty folder for a store.
    static func folder(_ name: String) -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("interlude-store-\(name)-\(getpid())-\(UUID().uuidString.prefix(8))")
    }

    /// Takes the origin at `source` into a new store (`root/store-NAME`, content "x") and expects
    /// it refused with a one-line error that says `why`, and no segment of it kept there.
    static func expectRefusedInOneLine(_ source: String, name: String, under root: URL, why: String) async throws {
        let folder = root.appendingPathComponent("store-\(name)")
        let store = try MediaStore(options: StoreOptions(root: folder, contents: ["x": source]))
        do {
            _ = try await store.content("x")
            Issue.record("\(name): taken")
        } catch {
            #expect("\(error)".contains(why) && !"\(error)".contains("\n"), "\(name): \(error)")
        }
        let left = FileManager.default.enumerator(atPath: folder.path)?.allObjects as? [String] ?? []
        #expect(!left.contains { $0.hasSuffix(".ts") }, "\(name): \(left)")
    }

    /// A store on the clip as "c", 2 s segments (two GOPs each).
    static func store(_ root: URL, configure: (inout StoreOptions) -> Void = { _ in }) throws -> MediaStore {
        var o = StoreOptions(root: root, contents: ["c": try clip().path], ladder: try Ladder.parse(ladder))
        o.segmentTarget = MediaTime(seconds: 2)
        configure(&o)
        return try MediaStore(options: o)
    }

    /// The files behind `segments`, concatenated into one TS file in `folder`.
    static func concatenate(_ segments: [StoredSegment], store: MediaStore, into folder: URL, name: String) throws -> URL {
        var data = Data()
        for s in segments {
            guard let f = store.file(forSegment: s.path) else { throw VerifierError.malformedOutput("store lost \(s.path)") }
            data.append(try Data(contentsOf: f))
        }
        let out = folder.appendingPathComponent(name)
        try data.write(to: out)
        return out
    }

    /// A VOD playlist in a new folder `name` under `root`: the runs' segments (copied in), an
    /// `EXT-X-DISCONTINUITY` between runs.
    static func playlist(_ runs: [[StoredSegment]], store: MediaStore, root: URL, name: String) throws -> URL {
        let folder = root.appendingPathComponent(name)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        var lines = ["#EXTM3U", "#EXT-X-VERSION:3", "#EXT-X-TARGETDURATION:2", "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
        for (i, run) in runs.enumerated() {
            if i > 0 { lines.append("#EXT-X-DISCONTINUITY") }
            for (j, s) in run.enumerated() {
                guard let file = store.file(forSegment: s.path) else { throw VerifierError.malformedOutput("store lost \(s.path)") }
                try FileManager.default.copyItem(at: file, to: folder.appendingPathComponent("r\(i)s\(j).ts"))
                lines += [String(format: "#EXTINF:%.6f,", s.duration.seconds), "r\(i)s\(j).ts"]
            }
        }
        lines.append("#EXT-X-ENDLIST")
        let url = folder.appendingPathComponent("index.m3u8")
        try (lines.joined(separator: "\n") + "\n").write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    /// Identities of the decoded frames of `url` (ffmpeg CLI), nil where none reads.
    static func identities(_ url: URL, size: PixelSize) throws -> [FrameIdentity?] {
        try MediaVerifier.videoFrames(url, reader: IdentityReader(output: size, sources: [])).map(\.identity)
    }

    /// Per-frame MD5s of the video packets (parameter sets and delimiters left out, so that the
    /// MP4's and the TS's forms of the same pictures compare).
    static func videoPacketMD5s(_ url: URL, mp4: Bool) throws -> [String] {
        let bsf = (mp4 ? "h264_mp4toannexb," : "") + "filter_units=remove_types=6|7|8|9"
        let out = try Tools.ffmpeg(["-v", "error", "-i", url.path, "-map", "0:v:0", "-c", "copy", "-bsf:v", bsf, "-f", "framemd5", "-"])
        return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .compactMap { line in
                // stream, dts, pts, duration, size, hash[, side data]
                let f = line.split(separator: ",")
                return f.count >= 6 ? f[5].trimmingCharacters(in: .whitespaces) : nil
            }
    }
}

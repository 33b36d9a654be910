import Foundation

/// Ad media whose pictures are larger than any player would show (over `PictureBudget.ad`), as an
/// ad server could send it: small, real files of two frames each, made with the ffmpeg CLI.
public enum OversizedAd: String, CaseIterable, Sendable {
    /// 8192×8192 H.264 at 1 fps with AAC, 2 s (about 200 KB).
    case h264 = "budget-h264-8192.mp4"
    /// The same with its MP4 sample entry and track header saying 640×360.
    case h264LyingHeader = "budget-h264-8192-says-640x360.mp4"
    /// 16000×16000 MJPEG in AVI, 2 frames at 1 fps.
    case mjpeg = "budget-mjpeg-16000.avi"
    /// The same with its AVI headers saying 640×360: only the JPEG frames tell.
    case mjpegLyingHeader = "budget-mjpeg-16000-says-640x360.avi"

    /// The file, made on first use in `TestMedia.cacheDirectory`.
    public var url: URL {
        get throws {
            switch self {
            case .h264:
                return try TestMedia.generated(rawValue, arguments: [
                    "-f", "lavfi", "-i", "color=c=blue:s=8192x8192:r=1", "-f", "lavfi", "-i", "sine=r=48000", "-t", "2",
                    "-c:v", "libx264", "-preset", "ultrafast", "-pix_fmt", "yuv420p", "-c:a", "aac", "-shortest"])
            case .mjpeg:
                return try TestMedia.generated(rawValue, arguments: [
                    "-f", "lavfi", "-i", "color=c=red:s=16000x16000:r=1", "-t", "2", "-c:v", "mjpeg", "-q:v", "31"])
            case .h264LyingHeader:
                return try Self.lying(rawValue, from: OversizedAd.h264.url) { d in
                    // avc1 VisualSampleEntry, from its type: type 4, reserved 6, data reference 2,
                    // pre-defined and reserved 16, then width and height (16 bits each)
                    try Self.patch(&d, after: "avc1", at: 4 + 6 + 2 + 16, bigEndian16: [640, 360])
                    // tkhd version 0: type 4, version and flags 4, times, id and duration 20,
                    // reserved 8, layer, group, volume and reserved 8, matrix 36, then 16.16 sizes
                    try Self.patch(&d, after: "tkhd", at: 4 + 4 + 20 + 8 + 8 + 36, bigEndian32: [640 << 16, 360 << 16], all: true)
                }
            case .mjpegLyingHeader:
                return try Self.lying(rawValue, from: OversizedAd.mjpeg.url) { d in
                    // avih: fourcc 4, size 4, eight 32-bit fields, then dwWidth and dwHeight;
                    // strf (BITMAPINFOHEADER): fourcc 4, size 4, biSize 4, then biWidth and biHeight
                    try Self.patch(&d, after: "avih", at: 4 + 4 + 32, littleEndian32: [640, 360])
                    try Self.patch(&d, after: "strf", at: 4 + 4 + 4, littleEndian32: [640, 360])
                }
            }
        }
    }

    /// An MPEG-TS ad whose stream information says 320×180 (2 s at 25 fps) and whose last two
    /// frames are 8320×64: a side over the budget that only its decoded frames show.
    public static func widerMidStream() throws -> URL {
        func part(_ name: String, _ size: String, _ seconds: String, offset: String) throws -> URL {
            try TestMedia.generated(name, arguments: ["-f", "lavfi", "-i", "color=c=green:s=\(size):r=25", "-t", seconds,
                                                      "-c:v", "libx264", "-preset", "ultrafast", "-output_ts_offset", offset])
        }
        let a = try part("budget-part-320x180.ts", "320x180", "2", offset: "0")
        let b = try part("budget-part-8320x64.ts", "8320x64", "0.08", offset: "2")
        let list = TestMedia.cacheDirectory.appendingPathComponent("budget-parts-\(UUID().uuidString).txt")
        try "file '\(a.path)'\nfile '\(b.path)'\n".write(to: list, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(at: list) }
        return try TestMedia.generated("budget-h264-wider-mid-stream.ts", arguments: ["-f", "concat", "-safe", "0", "-i", list.path, "-c", "copy"])
    }

    /// A copy of `source` as `name` in the media cache, its header patched by `edit`.
    static func lying(_ name: String, from source: URL, edit: (inout [UInt8]) throws -> Void) throws -> URL {
        let out = TestMedia.cacheDirectory.appendingPathComponent(name)
        if FileManager.default.fileExists(atPath: out.path) { return out }
        var bytes = [UInt8](try Data(contentsOf: source))
        try edit(&bytes)
        let temp = out.appendingPathExtension("partial-\(UUID().uuidString)")
        try Data(bytes).write(to: temp)
        _ = rename(temp.path, out.path)
        return out
    }

    static func offsets(of tag: String, in d: [UInt8]) -> [Int] {
        let t = Array(tag.utf8)
        return (0...(d.count - t.count)).filter { d[$0] == t[0] && Array(d[$0..<$0 + t.count]) == t }
    }

    static func patch(_ d: inout [UInt8], after tag: String, at offset: Int, bigEndian16 v: [Int] = [],
                      bigEndian32 v32: [Int] = [], littleEndian32 l32: [Int] = [], all: Bool = false) throws {
        let found = offsets(of: tag, in: d)
        guard !found.isEmpty else { throw VerifierError.malformedOutput("no \(tag) box") }
        for o in all ? found : [found[0]] {
            var p = o + offset
            for x in v { d[p] = UInt8(x >> 8 & 0xff); d[p + 1] = UInt8(x & 0xff); p += 2 }
            for x in v32 { for k in 0..<4 { d[p + k] = UInt8(x >> (24 - 8 * k) & 0xff) }; p += 4 }
            for x in l32 { for k in 0..<4 { d[p + k] = UInt8(x >> (8 * k) & 0xff) }; p += 4 }
        }
    }
}

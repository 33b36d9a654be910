import Foundation
import Media
import TestSupport
import Testing

/// The test encryptor for SAMPLE-AES MPEG-TS is right: FFmpeg's HLS reader, which implements
/// Apple's sample decryption, decodes an encrypted playlist to the clear one's frames, sound
/// included, while the encrypted segments read as plain MPEG-TS do not decode to them.
@Suite(.serialized) struct SampleAESTSEncryptorTests {
    static let key: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 5) }
    static let iv: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 1) }

    static func hex(_ b: [UInt8]) -> String { b.map { String(format: "%02x", $0) }.joined() }

    /// Frame hashes of every stream (framemd5 lines, timestamps dropped).
    static func hashes(_ input: String) async throws -> [String] {
        let out = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-allowed_extensions", "ALL", "-i", input,
                                                               "-map", "0", "-f", "framemd5", "-"])
        let lines = String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
        return lines.map { line -> String in
            let fields: [String] = line.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            return fields[0] + "," + fields[fields.count - 1]
        }
    }

    @Test func ffmpegDecryptsItToTheClearFrames() async throws {
        let root = StoreFixture.folder("saes-unit")
        defer { try? FileManager.default.removeItem(at: root) }
        let files = try ServeStoreHLSSourceTests.origin(in: root.appendingPathComponent("origin"))
        let dir = root.appendingPathComponent("play")
        try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true)
        try Data(Self.key).write(to: dir.appendingPathComponent("key.bin"))
        var clear = "#EXTM3U\n#EXT-X-VERSION:3\n#EXT-X-TARGETDURATION:2\n"
        var encrypted = clear + "#EXT-X-KEY:METHOD=SAMPLE-AES,URI=\"key.bin\",IV=0x\(Self.hex(Self.iv))\n"
        for i in 0..<2 {
            let (data, _) = try #require(files["/a\(i).ts"])
            try data.write(to: dir.appendingPathComponent("c\(i).ts"))
            let e = try SampleAESTSEncryptor.encrypt(data, key: Self.key, iv: Self.iv)
            #expect(e.count % 188 == 0 && e.count >= data.count && e != data)
            try e.write(to: dir.appendingPathComponent("e\(i).ts"))
            clear += "#EXTINF:2.0,\nc\(i).ts\n"
            encrypted += "#EXTINF:2.0,\ne\(i).ts\n"
        }
        try (clear + "#EXT-X-ENDLIST\n").write(to: dir.appendingPathComponent("clear.m3u8"), atomically: true, encoding: .utf8)
        try (encrypted + "#EXT-X-ENDLIST\n").write(to: dir.appendingPathComponent("enc.m3u8"), atomically: true, encoding: .utf8)
        let want = try await Self.hashes(dir.appendingPathComponent("clear.m3u8").path)
        #expect(want.filter { $0.hasPrefix("0,") }.count == 120 && want.contains { $0.hasPrefix("1,") })
        let got = try await Self.hashes(dir.appendingPathComponent("enc.m3u8").path)
        // every frame but the stream's last picture: FFmpeg 5.1's H.264 parser holds each picture
        // until the next one begins, so the last in decode order (one of the last two shown) comes out after its segment was left, and its
        // HLS reader decrypts a packet with the key of the segment it is in then (none at the end)
        let differ = got.indices.filter { $0 < want.count && got[$0] != want[$0] }
        #expect(got.count == want.count && differ.count <= 1 && differ.allSatisfy { got.indices.filter { got[$0].hasPrefix("0,") }.suffix(2).contains($0) },
                "decrypted: \(got.count) frames, clear \(want.count); differing at \(differ)")
        // read as plain MPEG-TS (no key), the pictures are not the clear ones
        let raw = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "quiet", "-i", dir.appendingPathComponent("e0.ts").path,
                                                               "-map", "0:v", "-f", "framemd5", "-"])
        let rawVideo = String(decoding: raw.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
            .map { String($0.split(separator: ",").last!.trimmingCharacters(in: .whitespaces)) }
        let clearVideo = want.filter { $0.hasPrefix("0,") }.prefix(60).map { String($0.split(separator: ",").last!) }
        #expect(Array(rawVideo.prefix(60)) != Array(clearVideo), "the encrypted pictures decode as the clear ones")
    }
}

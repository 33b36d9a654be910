import Foundation
import Media
import TestSupport
import Testing

/// The test fixtures' CENC `cbcs` encryptor (`CBCSEncryptor`): a clear CMAF origin of the ffmpeg
/// CLI (video and audio in each fragment, HLS fMP4 segments with a `sidx` per track), encrypted,
/// decodes with its key in FFmpeg to the very frames of the clear one, is marked encrypted, has
/// one block in ten of its video really encrypted, and malformed input throws in one line.
@Suite(.serialized) struct CBCSEncryptorTests {
    static let kid: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 17 &+ 1) }
    static let key: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: $0 &* 29 &+ 7) }
    static let iv: [UInt8] = (0..<16).map { UInt8(truncatingIfNeeded: 0xA0 &+ $0 &* 3) }
    static var keyHex: String { key.map { String(format: "%02x", $0) }.joined() }

    /// A clear CMAF origin: init and 1 s segments (3 s of 320x240 25 fps H.264, GOP 25, AAC).
    struct Origin: Sendable {
        var folder: URL
        var initSegment: Data
        var segments: [Data]
    }

    static func origin() throws -> Origin {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("cbcs-\(getpid())-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Tools.ffmpeg(["-v", "error", "-f", "lavfi", "-i", "testsrc2=size=320x240:rate=25:duration=3",
                          "-f", "lavfi", "-i", "sine=frequency=440:duration=3",
                          "-c:v", "libx264", "-g", "25", "-keyint_min", "25", "-sc_threshold", "0", "-pix_fmt", "yuv420p",
                          "-c:a", "aac", "-f", "hls", "-hls_segment_type", "fmp4", "-hls_time", "1", "-hls_playlist_type", "vod",
                          "-hls_fmp4_init_filename", "init.mp4", "-hls_segment_filename", folder.appendingPathComponent("seg%d.m4s").path,
                          folder.appendingPathComponent("index.m3u8").path])
        let playlist = try String(contentsOf: folder.appendingPathComponent("index.m3u8"), encoding: .utf8)
        let names = playlist.split(separator: "\n").filter { $0.hasSuffix(".m4s") }
        let segments = try names.map { try Data(contentsOf: folder.appendingPathComponent(String($0))) }
        return Origin(folder: folder, initSegment: try Data(contentsOf: folder.appendingPathComponent("init.mp4")), segments: segments)
    }

    /// `ffmpeg -v error -xerror [arguments] -f framemd5 -`: exit status, stdout as text, stderr.
    static func framemd5(_ arguments: [String]) async throws -> (status: Int32, text: String, stderr: String) {
        let r = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror"] + arguments + ["-f", "framemd5", "-"])
        return (r.status, String(decoding: r.stdout, as: UTF8.self), r.stderr)
    }

    /// The `senc` entries of each fragment of `segment`: per sample, (clear, protected) pairs.
    static func sencSamples(_ segment: Data) throws -> [[(clear: Int, protected: Int)]] {
        let b = [UInt8](segment)
        var samples: [[(clear: Int, protected: Int)]] = []
        for moof in try CBCSEncryptor.MP4Box.list(b, in: 0..<b.count) where moof.type == "moof" {
            for traf in try CBCSEncryptor.MP4Box.list(b, in: moof.body..<moof.end) where traf.type == "traf" {
                for senc in try CBCSEncryptor.MP4Box.list(b, in: traf.body..<traf.end) where senc.type == "senc" {
                    var at = senc.body + 8
                    for _ in 0..<Int(try CBCSEncryptor.u32(b, senc.body + 4)) {
                        let n = Int(try CBCSEncryptor.u16(b, at))
                        samples.append(try (0..<n).map { i in
                            (Int(try CBCSEncryptor.u16(b, at + 2 + 6 * i)), Int(try CBCSEncryptor.u32(b, at + 4 + 6 * i)))
                        })
                        at += 2 + 6 * n
                    }
                }
            }
        }
        return samples
    }

    /// Where each `sidx` of `segment` says its references start and end: each must be a top-level
    /// box boundary, the first a `moof`.
    static func sidxReferencesLandOnBoxes(_ segment: Data) throws -> Bool {
        let b = [UInt8](segment)
        let top = try CBCSEncryptor.MP4Box.list(b, in: 0..<b.count)
        let starts = Dictionary(top.map { ($0.start, $0.type) }, uniquingKeysWith: { a, _ in a })
        var checked = 0
        for sidx in top where sidx.type == "sidx" {
            let v1 = b[sidx.body] == 1
            let firstAt = sidx.body + 12 + (v1 ? 8 : 4)
            var cursor = sidx.end + Int(v1 ? try CBCSEncryptor.u64(b, firstAt) : UInt64(try CBCSEncryptor.u32(b, firstAt)))
            let countAt = firstAt + (v1 ? 8 : 4) + 2
            for i in 0..<Int(try CBCSEncryptor.u16(b, countAt)) {
                guard starts[cursor] == "moof" else { return false }
                cursor += Int(try CBCSEncryptor.u32(b, countAt + 2 + 12 * i) & 0x7FFF_FFFF)
                guard cursor == b.count || starts[cursor] != nil else { return false }
                checked += 1
            }
        }
        return checked > 0
    }

    /// SP 800-38A F.2.1 (CBC-AES128.Encrypt), in two calls that continue one chain.
    @Test func cbcBlocksMatchSP800_38AAndChainAcrossCalls() throws {
        func hex(_ s: String) -> [UInt8] {
            stride(from: 0, to: s.count, by: 2).map { UInt8(s.dropFirst($0).prefix(2), radix: 16) ?? 0 }
        }
        let key = hex("2b7e151628aed2a6abf7158809cf4f3c")
        var chain = hex("000102030405060708090a0b0c0d0e0f")
        var bytes = [0xEE] + hex("6bc1bee22e409f96e93d7e117393172aae2d8a571e03ac9c9eb76fac45af8e51"
            + "30c81c46a35ce411e5fbc1191a0a52eff69f2445df4f9b17ad2b417be66c3710") + [0xEE]
        try AES128.encryptCBCBlocks(&bytes, range: 1..<33, key: key, chain: &chain)
        try AES128.encryptCBCBlocks(&bytes, range: 33..<65, key: key, chain: &chain)
        #expect(bytes == [0xEE] + hex("7649abac8119b246cee98e9b12e9197d5086cb9b507219ee95db113a917678b2"
            + "73bed6b8e3c1743b7116e69e222295163ff1caa1681fac09120eca307586e1a7") + [0xEE])
        #expect(chain == hex("3ff1caa1681fac09120eca307586e1a7"), "the chain is the last ciphertext block")
        #expect(throws: AES128.Failure.self) { try AES128.encryptCBCBlocks(&bytes, range: 1..<16, key: key, chain: &chain) }
        #expect(throws: AES128.Failure.self) { try AES128.encryptCBCBlocks(&bytes, range: 60..<76, key: key, chain: &chain) }
    }

    @Test func anEncryptedCMAFVideoTrackDecodesWithItsKeyToTheClearFrames() async throws {
        let origin = try await offPool { try Self.origin() }
        defer { try? FileManager.default.removeItem(at: origin.folder) }
        #expect(origin.segments.count == 3)
        let track = try CBCSEncryptor.videoTrackID(origin.initSegment)
        let encInit = try CBCSEncryptor.encryptInit(origin.initSegment, kid: Self.kid, constantIV: Self.iv)
        let encSegments = try origin.segments.map {
            try CBCSEncryptor.encryptSegment($0, key: Self.key, constantIV: Self.iv, trackID: track)
        }
        let clear = origin.folder.appendingPathComponent("clear.mp4"), enc = origin.folder.appendingPathComponent("enc.mp4")
        try origin.segments.reduce(origin.initSegment, +).write(to: clear)
        try encSegments.reduce(encInit, +).write(to: enc)

        // the real proof: with its key, FFmpeg decodes every frame as the clear file's. `ignidx`:
        // on a seekable file FFmpeg 5.1's mov demuxer reads every moof at open and then decrypts
        // each packet with the last fragment's encryption info (its cenc_filter takes the fragment
        // being parsed, not the packet's; later FFmpeg fixed it), so a file of several fragments
        // fails from the second on; `ignidx` makes it read each moof when it gets there, still
        // seekable, so it reads the auxiliary info where saio points (a wrong offset fails).
        let read = ["-fflags", "+ignidx"]
        let clearVideo = try await Self.framemd5(["-i", clear.path, "-map", "0:v"])
        let decrypted = try await Self.framemd5(read + ["-decryption_key", Self.keyHex, "-i", enc.path, "-map", "0:v"])
        #expect(clearVideo.status == 0 && decrypted.status == 0, "\(clearVideo.stderr) \(decrypted.stderr)")
        #expect(clearVideo.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.count == 75)
        #expect(decrypted.text == clearVideo.text, "every decrypted frame is the clear one")
        // audio is left clear: the same packets, no key needed (FFmpeg hangs the pssh on the
        // last track read, here the audio: its first packet carries it as side data, `S=1`)
        func packets(_ text: String) -> [String] {
            text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map { $0.split(separator: ",").prefix(6).joined(separator: ",") }
        }
        let clearAudio = try await Self.framemd5(["-i", clear.path, "-map", "0:a", "-c", "copy"])
        let encAudio = try await Self.framemd5(read + ["-i", enc.path, "-map", "0:a", "-c", "copy"])
        #expect(clearAudio.status == 0 && encAudio.status == 0 && packets(clearAudio.text).count > 100)
        #expect(packets(encAudio.text) == packets(clearAudio.text), "the audio packets as they were")

        // marked encrypted: encv/cbcs in the init, encryption info on each video packet (none on
        // audio), the pssh read, and without the key the pictures are not the clear ones
        let probe = try await runOffPool(try Tools.ffprobePath(), ["-v", "error", "-fflags", "+ignidx", "-show_packets", "-show_streams", enc.path])
        let report = String(decoding: probe.stdout, as: UTF8.self)
        #expect(report.components(separatedBy: "side_data_type=Encryption info\n").count - 1 == 75, "every video packet, no audio one")
        #expect(report.contains("side_data_type=Encryption initialization data"), "the pssh")
        let clearProbe = try await runOffPool(try Tools.ffprobePath(), ["-v", "error", "-show_packets", clear.path])
        #expect(!String(decoding: clearProbe.stdout, as: UTF8.self).contains("Encryption"))
        let keyless = try await Self.framemd5(read + ["-i", enc.path, "-map", "0:v"])
        #expect(keyless.status != 0 || keyless.text != clearVideo.text, "without the key the frames differ")
        // the decryption reads saio: moved by 6 bytes, the same file no longer decodes clean
        let skewed = try encSegments.map { try Self.movingSaio(of: $0, by: 6) }
        let badSaio = origin.folder.appendingPathComponent("bad-saio.mp4")
        try skewed.reduce(encInit, +).write(to: badSaio)
        let misread = try await Self.framemd5(read + ["-decryption_key", Self.keyHex, "-i", badSaio.path, "-map", "0:v"])
        #expect(misread.status != 0 || misread.text != clearVideo.text, "a wrong saio offset is noticed")
        let initBytes = String(decoding: encInit.map { (0x20..<0x7F).contains($0) ? $0 : 0x2E }, as: UTF8.self)
        #expect(["encv", "sinf", "frmaavc1", "schm....cbcs", "tenc", "pssh"].allSatisfy { initBytes.contains($0) }, "\(initBytes)")

        // not a no-op: one block in ten of the protected bytes differs from the clear, nothing else
        for (clearSegment, encSegment) in zip(origin.segments, encSegments) {
            let samples = try Self.sencSamples(encSegment)
            #expect(samples.count == 25, "one senc entry per video sample")
            let blocks = samples.joined().map { ($0.protected + 16 * 9) / (16 * 10) }.reduce(0, +)
            let protected = samples.joined().map(\.protected).reduce(0, +)
            let (clearData, encData) = (try Self.mdatBytes(clearSegment), try Self.mdatBytes(encSegment))
            #expect(clearData.count == encData.count)
            let differing = zip(clearData, encData).filter { $0 != $1 }.count
            #expect(blocks > 0 && differing <= blocks * 16 && differing >= blocks * 16 * 9 / 10,
                    "\(differing) bytes differ, \(blocks) blocks encrypted")
            #expect(Double(blocks * 16) > Double(protected) * 0.08 && Double(blocks * 16) < Double(protected) * 0.12, "1:9")
            #expect(try Self.sidxReferencesLandOnBoxes(clearSegment) && Self.sidxReferencesLandOnBoxes(encSegment),
                    "each sidx reference still spans its moof and mdat")
        }
    }

    /// `segment` with the offset of each `saio` (version 0, one entry) moved by `delta`.
    static func movingSaio(of segment: Data, by delta: Int) throws -> Data {
        var b = [UInt8](segment)
        for moof in try CBCSEncryptor.MP4Box.list(b, in: 0..<b.count) where moof.type == "moof" {
            for traf in try CBCSEncryptor.MP4Box.list(b, in: moof.body..<moof.end) where traf.type == "traf" {
                for saio in try CBCSEncryptor.MP4Box.list(b, in: traf.body..<traf.end) where saio.type == "saio" {
                    let offset = Int(try CBCSEncryptor.u32(b, saio.body + 8))
                    CBCSEncryptor.put(UInt32(offset + delta), into: &b, at: saio.body + 8)
                }
            }
        }
        return Data(b)
    }

    /// A fragment made by hand, one track, the sample size in `tfhd` (none in `trun`): sample A
    /// an SEI (10 bytes) then an IDR slice (60), sample B a slice (74), 78 bytes each. Encrypted:
    /// A's SEI folded into its subsample's clear bytes (14 + 36, 28 protected), B (36, 42); in
    /// each, the one whole block after the clear bytes encrypted from the constant IV (the same
    /// block in both, so the chain restarts per sample), the 12 and 26 bytes after it clear;
    /// `trun.data_offset` still lands on the `mdat`'s payload, `saio` on the first `senc` entry.
    @Test func aHandMadeFragmentWithTheSampleSizeInTfhd() throws {
        let nal: (UInt8, Int) -> [UInt8] = { type, length in
            CBCSEncryptor.bigEndian(UInt32(length)) + [0x60 | type] + (1..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        }
        let a = nal(6, 10) + nal(5, 60), b = nal(1, 74)
        func moof(dataOffset: UInt32) throws -> [UInt8] {
            let tfhd = try CBCSEncryptor.makeFullBox("tfhd", version: 0, flags: 0x02_0010, CBCSEncryptor.bigEndian(UInt32(1)) + CBCSEncryptor.bigEndian(UInt32(78)))
            let trun = try CBCSEncryptor.makeFullBox("trun", version: 0, flags: 0x1, CBCSEncryptor.bigEndian(UInt32(2)) + CBCSEncryptor.bigEndian(dataOffset))
            let mfhd = try CBCSEncryptor.makeFullBox("mfhd", version: 0, flags: 0, CBCSEncryptor.bigEndian(UInt32(1)))
            return try CBCSEncryptor.makeBox("moof", mfhd + CBCSEncryptor.makeBox("traf", tfhd + trun))
        }
        let size = try moof(dataOffset: 0).count
        let clear = try moof(dataOffset: UInt32(size + 8)) + CBCSEncryptor.makeBox("mdat", a + b)
        let enc = [UInt8](try CBCSEncryptor.encryptSegment(Data(clear), key: Self.key, constantIV: Self.iv))

        let top = try CBCSEncryptor.MP4Box.list(enc, in: 0..<enc.count)
        #expect(top.map(\.type) == ["moof", "mdat"])
        let (newMoof, mdat) = (top[0], top[1])
        let samples = try Self.sencSamples(Data(enc))
        #expect(samples.map { $0.map { [$0.clear, $0.protected] } } == [[[50, 28]], [[36, 42]]])
        let traf = try #require(try CBCSEncryptor.MP4Box.list(enc, in: newMoof.body..<newMoof.end).first { $0.type == "traf" })
        let kids = try CBCSEncryptor.MP4Box.list(enc, in: traf.body..<traf.end)
        #expect(kids.map(\.type) == ["tfhd", "trun", "saiz", "saio", "senc"])
        let trun = try #require(kids.first { $0.type == "trun" }), saio = try #require(kids.first { $0.type == "saio" })
        #expect(Int(try CBCSEncryptor.u32(enc, trun.body + 8)) == mdat.body - newMoof.start, "data_offset moved with the moof")
        let aux = newMoof.start + Int(try CBCSEncryptor.u32(enc, saio.body + 8))
        #expect(Array(enc[aux..<aux + 8]) == [0, 1, 0, 50, 0, 0, 0, 28], "saio points at A's senc entry")

        var expected = a + b
        for start in [50, 78 + 36] {
            var chain = Self.iv
            try AES128.encryptCBCBlocks(&expected, range: start..<start + 16, key: Self.key, chain: &chain)
        }
        #expect(Array(enc[mdat.body..<mdat.end]) == expected, "one block per sample, each from the constant IV")
        #expect(expected[50..<66] == expected[114..<130] && expected[50..<66] != (a + b)[50..<66])
    }

    /// A clear run longer than `senc`'s 16-bit clear count is split ahead of the subsample.
    @Test func aLongClearRunIsSplitIntoSixteenBitCounts() throws {
        let sei = CBCSEncryptor.bigEndian(UInt32(70_000)) + [0x06] + [UInt8](repeating: 0x55, count: 69_999)
        let slice = CBCSEncryptor.bigEndian(UInt32(200)) + [0x41] + [UInt8](repeating: 0x33, count: 199)
        let bytes = sei + slice
        let subsamples = try CBCSEncryptor.subsamples(bytes, sample: 0..<bytes.count)
        #expect(subsamples.map { [$0.clear, $0.protected] } == [[65_535, 0], [70_004 - 65_535 + 36, 204 - 36]])
        #expect(throws: CBCSEncryptor.Failure.self) { try CBCSEncryptor.subsamples(bytes, sample: 0..<bytes.count - 1) }
    }

    /// The payloads of the `mdat`s of `segment`, joined.
    static func mdatBytes(_ segment: Data) throws -> [UInt8] {
        let b = [UInt8](segment)
        return try CBCSEncryptor.MP4Box.list(b, in: 0..<b.count).filter { $0.type == "mdat" }.flatMap { b[$0.body..<$0.end] }
    }

    @Test func malformedInputThrowsInOneLine() throws {
        let origin = try Self.origin()
        defer { try? FileManager.default.removeItem(at: origin.folder) }
        let segment = origin.segments[0], track = try CBCSEncryptor.videoTrackID(origin.initSegment)
        func refused(_ data: Data, init isInit: Bool = false) -> String? {
            do {
                if isInit { _ = try CBCSEncryptor.encryptInit(data, kid: Self.kid, constantIV: Self.iv) }
                else { _ = try CBCSEncryptor.encryptSegment(data, key: Self.key, constantIV: Self.iv, trackID: track) }
                return nil
            } catch {
                return "\(error)"
            }
        }
        // every strict prefix of a segment or of the init is refused
        for cut in stride(from: 0, to: segment.count, by: 97) {
            #expect(refused(segment.prefix(cut)) != nil, "segment cut at \(cut)")
        }
        for cut in stride(from: 0, to: origin.initSegment.count, by: 7) {
            #expect(refused(origin.initSegment.prefix(cut), init: true) != nil, "init cut at \(cut)")
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        let garbage = Data((0..<3000).map { _ in
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: seed >> 56)
        })
        var bad: [(String, Data, Bool)] = [("garbage", garbage, false), ("garbage init", garbage, true), ("empty", Data(), false)]
        // a NAL unit length that overruns its sample; a trun claiming a huge sample count
        let b = [UInt8](segment)
        let top = try CBCSEncryptor.MP4Box.list(b, in: 0..<b.count)
        let mdat = try #require(top.first { $0.type == "mdat" })
        var nal = b
        nal.replaceSubrange(mdat.body..<mdat.body + 4, with: [0x7F, 0xFF, 0xFF, 0xF0])
        bad.append(("NAL length", Data(nal), false))
        let moof = try #require(top.first { $0.type == "moof" })
        let traf = try #require(try CBCSEncryptor.MP4Box.list(b, in: moof.body..<moof.end).first { $0.type == "traf" })
        let trun = try #require(try CBCSEncryptor.MP4Box.list(b, in: traf.body..<traf.end).first { $0.type == "trun" })
        var count = b
        count.replaceSubrange(trun.body + 4..<trun.body + 8, with: [0x7F, 0xFF, 0xFF, 0xFF])
        bad.append(("trun count", Data(count), false))
        var short = b
        short.replaceSubrange(trun.body + 4..<trun.body + 8, with: [0, 0, 0x10, 0])
        bad.append(("trun past its box", Data(short), false))
        // an init without AVC video
        var hevc = [UInt8](origin.initSegment)
        for i in 0..<hevc.count - 4 where hevc[i..<i + 4].elementsEqual("avc1".utf8) { hevc[i] = UInt8(ascii: "h") }
        bad.append(("no AVC", Data(hevc), true))
        // bytes changed at random in the boxes (not the media data): refused or not, never a trap
        let headers = mdat.start
        for _ in 0..<400 {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            var mutated = b, mutatedInit = [UInt8](origin.initSegment)
            mutated[Int(seed >> 33) % headers] = UInt8(truncatingIfNeeded: seed >> 20)
            mutatedInit[Int(seed >> 33) % mutatedInit.count] = UInt8(truncatingIfNeeded: seed >> 12)
            _ = refused(Data(mutated))
            _ = refused(Data(mutatedInit), init: true)
        }
        for (name, data, isInit) in bad {
            let why = refused(data, init: isInit)
            #expect(why != nil && why?.contains("\n") == false, "\(name): \(why ?? "accepted")")
        }
        #expect(throws: CBCSEncryptor.Failure.self) { try CBCSEncryptor.encryptSegment(segment, key: [1, 2], constantIV: Self.iv) }
        #expect(throws: CBCSEncryptor.Failure.self) { try CBCSEncryptor.encryptSegment(segment, key: Self.key, constantIV: Self.iv) }
    }
}

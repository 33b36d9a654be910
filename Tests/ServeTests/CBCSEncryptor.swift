import Foundation
import Media

/// A CENC `cbcs` encryptor for test fixtures (ISO/IEC 23001-7 3rd ed.): pattern encryption 1:9
/// with a constant IV, for the AVC video track of CMAF (fragmented MP4) made by the ffmpeg CLI,
/// whose mov muxer writes only `cenc`. Audio stays clear.
///
/// The init segment gets an `encv` sample entry with `sinf` (`frma`, `schm` 'cbcs', `schi`/`tenc`
/// v1) and a W3C Common (ClearKey) `pssh` v1 in its `moov`. Each fragment's video `traf` gets
/// `saiz`, `saio` and `senc` (subsamples, no per-sample IV) after its `trun`s, `saio` pointing
/// into `senc` from the `moof`'s start; every `trun.data_offset` of the grown `moof` is moved,
/// and each `sidx` kept with its `first_offset` and `referenced_size`s grown by the `moof`s they
/// span.
///
/// Subsamples: each VCL NAL unit (types 1 and 5) keeps its 4-byte length, its header and the next
/// 31 bytes clear (the slice header); the rest of the NAL unit is protected, every tenth
/// 16-byte block from its start encrypted, the CBC chain restarted at the constant IV for each
/// subsample and continued across the skipped blocks, a partial block at its end left clear (as
/// FFmpeg's `cbcs_scheme_decrypt` reads it). Other NAL units are clear, counted into the next
/// subsample's clear bytes (split where a clear count passes 16 bits).
enum CBCSEncryptor {
    /// Why bytes cannot be encrypted: one line.
    struct Failure: Error, CustomStringConvertible {
        /// One line.
        var description: String
        init(_ description: String) { self.description = description }
    }

    /// The W3C Common PSSH system ID (ClearKey), 1077efec-c0b2-4d02-ace3-3c1e52e2fb4b.
    static let commonSystemID: [UInt8] = [0x10, 0x77, 0xEF, 0xEC, 0xC0, 0xB2, 0x4D, 0x02,
                                          0xAC, 0xE3, 0x3C, 0x1E, 0x52, 0xE2, 0xFB, 0x4B]
    /// Blocks encrypted, then blocks skipped, in each protected range.
    static let cryptBlocks = 1, skipBlocks = 9
    /// Clear bytes at the head of a VCL NAL unit: its length (4), its header (1), 31 more.
    static let clearHead = 36

    /// `initSegment` with its AVC video track protected: `avc1`/`avc3` renamed `encv` with a
    /// `sinf` for `cbcs` 1:9 with `constantIV` and `kid`, a Common `pssh` naming `kid` in `moov`.
    static func encryptInit(_ initSegment: Data, kid: [UInt8], constantIV: [UInt8]) throws -> Data {
        guard kid.count == 16, constantIV.count == 16 else { throw Failure("a KID and a constant IV are 16 bytes each") }
        let bytes = [UInt8](initSegment)
        let top = try MP4Box.list(bytes, in: 0..<bytes.count)
        let moovs = top.filter { $0.type == "moov" }
        guard moovs.count == 1 else { throw Failure("the init segment has \(moovs.count) moov boxes, not one") }
        var out: [UInt8] = []
        for box in top {
            out += box.type == "moov" ? try protectedMoov(bytes, box, kid: kid, iv: constantIV) : Array(bytes[box.range])
        }
        return Data(out)
    }

    /// The track ID of `initSegment`'s AVC video track (to name it to `encryptSegment` when
    /// fragments carry several tracks).
    static func videoTrackID(_ initSegment: Data) throws -> UInt32 {
        let bytes = [UInt8](initSegment)
        let top = try MP4Box.list(bytes, in: 0..<bytes.count)
        guard let moov = top.first(where: { $0.type == "moov" }) else { throw Failure("the init segment has no moov") }
        let tkhd = try descendant(bytes, of: try videoTrak(bytes, moov), path: ["tkhd"])
        let version = try byte(bytes, tkhd.body, in: tkhd)
        return try u32(bytes, tkhd.body + (version == 1 ? 20 : 12), in: tkhd)
    }

    /// `segment` (styp, sidx, moof + mdat ...) with the video samples of each fragment encrypted
    /// in place and described by `senc`/`saiz`/`saio`. `trackID` names the video track when a
    /// fragment has several; nil: each fragment must have exactly one `traf`.
    static func encryptSegment(_ segment: Data, key: [UInt8], constantIV: [UInt8], trackID: UInt32? = nil) throws -> Data {
        guard key.count == 16, constantIV.count == 16 else { throw Failure("an AES-128 key and a constant IV are 16 bytes each") }
        var bytes = [UInt8](segment)
        let top = try MP4Box.list(bytes, in: 0..<bytes.count)
        let mdats = top.filter { $0.type == "mdat" }.map { $0.body..<$0.end }
        // each moof rebuilt (start → bytes) and how much it grew (start → bytes)
        var moofs: [Int: [UInt8]] = [:], growth: [Int: Int] = [:]
        for moof in top where moof.type == "moof" {
            let rebuilt = try encryptFragment(&bytes, moof, mdats: mdats, key: key, iv: constantIV, trackID: trackID)
            moofs[moof.start] = rebuilt
            growth[moof.start] = rebuilt.count - moof.size
        }
        guard !moofs.isEmpty else { throw Failure("the segment has no moof") }
        var out: [UInt8] = []
        for box in top {
            switch box.type {
            case "moof": out += moofs[box.start] ?? []
            case "sidx": out += try movedSidx(bytes, box, growth: growth)
            default: out += bytes[box.range]
            }
        }
        return Data(out)
    }
}

// MARK: boxes

extension CBCSEncryptor {
    /// One ISO BMFF box inside a byte array: its type and where its header, body and end lie.
    struct MP4Box {
        /// The four-character type, non-printable bytes as "?".
        var type: String
        /// The first byte of the header.
        var start: Int
        /// The first byte after the header.
        var body: Int
        /// One past the last byte.
        var end: Int
        /// The whole box.
        var range: Range<Int> { start..<end }
        /// The whole box's size in bytes.
        var size: Int { end - start }

        /// The boxes laid end to end in `bytes[range]`; throws unless they fill it exactly.
        static func list(_ bytes: [UInt8], in range: Range<Int>) throws -> [MP4Box] {
            guard range.lowerBound >= 0, range.upperBound <= bytes.count else { throw Failure("boxes at \(range) lie outside \(bytes.count) bytes") }
            var boxes: [MP4Box] = []
            var at = range.lowerBound
            while at < range.upperBound {
                let left = range.upperBound - at
                guard left >= 8 else { throw Failure("\(left) stray bytes at \(at), too few for a box header") }
                let type = fourCC(bytes, at + 4)
                var size = Int(try u32(bytes, at)), header = 8
                if size == 1 {
                    guard left >= 16 else { throw Failure("the \(type) box at \(at) has a cut 64-bit size") }
                    let large = try u64(bytes, at + 8)
                    size = large > UInt64(Int.max) ? Int.max : Int(large)
                    header = 16
                } else if size == 0 {
                    size = left
                }
                guard size >= header, size <= left else { throw Failure("the \(type) box at \(at) claims \(size) bytes, \(left) are left") }
                boxes.append(MP4Box(type: type, start: at, body: at + header, end: at + size))
                at += size
            }
            return boxes
        }
    }

    /// The four bytes at `at` as a box type; the caller has checked they exist.
    static func fourCC(_ bytes: [UInt8], _ at: Int) -> String {
        String(bytes[at..<at + 4].map { (0x20..<0x7F).contains($0) ? Character(UnicodeScalar($0)) : "?" })
    }

    /// The byte at `at`, which must lie inside `box` (the whole array when nil).
    static func byte(_ bytes: [UInt8], _ at: Int, in box: MP4Box? = nil) throws -> UInt8 {
        try UInt8(readingBigEndian: bytes, at: at, count: 1, in: box)
    }

    /// The big-endian 16-bit word at `at`, inside `box`.
    static func u16(_ bytes: [UInt8], _ at: Int, in box: MP4Box? = nil) throws -> UInt16 {
        try UInt16(readingBigEndian: bytes, at: at, count: 2, in: box)
    }

    /// The big-endian 32-bit word at `at`, inside `box`.
    static func u32(_ bytes: [UInt8], _ at: Int, in box: MP4Box? = nil) throws -> UInt32 {
        try UInt32(readingBigEndian: bytes, at: at, count: 4, in: box)
    }

    /// The big-endian 64-bit word at `at`, inside `box`.
    static func u64(_ bytes: [UInt8], _ at: Int, in box: MP4Box? = nil) throws -> UInt64 {
        try UInt64(readingBigEndian: bytes, at: at, count: 8, in: box)
    }

    /// `value` as `width` big-endian bytes.
    static func bigEndian<T: FixedWidthInteger>(_ value: T, width: Int = MemoryLayout<T>.size) -> [UInt8] {
        (0..<width).reversed().map { UInt8(truncatingIfNeeded: value >> ($0 * 8)) }
    }

    /// Overwrites `bytes[at..<at + width]` with `value` big-endian; the caller has checked the range.
    static func put<T: FixedWidthInteger>(_ value: T, into bytes: inout [UInt8], at: Int, width: Int = MemoryLayout<T>.size) {
        bytes.replaceSubrange(at..<at + width, with: bigEndian(value, width: width))
    }

    /// A box of `type` around `body`, with a 32-bit size.
    static func makeBox(_ type: String, _ body: [UInt8]) throws -> [UInt8] {
        guard body.count <= Int(UInt32.max) - 8 else { throw Failure("a \(type) box of \(body.count) bytes does not fit a 32-bit size") }
        return bigEndian(UInt32(body.count + 8)) + Array(type.utf8.prefix(4)) + body
    }

    /// A full box (version, 24-bit flags) of `type` around `body`.
    static func makeFullBox(_ type: String, version: UInt8, flags: UInt32, _ body: [UInt8]) throws -> [UInt8] {
        try makeBox(type, [version] + bigEndian(flags, width: 3) + body)
    }

    /// The only box at `path` below `box` (each step the only child of that type).
    static func descendant(_ bytes: [UInt8], of box: MP4Box, path: [String]) throws -> MP4Box {
        var current = box
        for type in path {
            let found = try MP4Box.list(bytes, in: current.body..<current.end).filter { $0.type == type }
            guard found.count == 1, let only = found.first else { throw Failure("the \(current.type) box has \(found.count) \(type) boxes, not one") }
            current = only
        }
        return current
    }

    /// `box` rebuilt with the box at `path` below it replaced by `leaf(that box)`, every
    /// enclosing size fixed; the other children as they were.
    static func rewriting(_ bytes: [UInt8], _ box: MP4Box, path: ArraySlice<String>,
                          leaf: (MP4Box) throws -> [UInt8]) throws -> [UInt8] {
        guard let next = path.first else { return try leaf(box) }
        let children = try MP4Box.list(bytes, in: box.body..<box.end)
        guard children.filter({ $0.type == next }).count == 1 else { throw Failure("the \(box.type) box has no single \(next) box") }
        var body: [UInt8] = []
        for child in children {
            body += child.type == next ? try rewriting(bytes, child, path: path.dropFirst(), leaf: leaf) : Array(bytes[child.range])
        }
        return try makeBox(box.type, body)
    }
}

private extension FixedWidthInteger {
    /// The `count` big-endian bytes at `at`, which must lie inside `box` (or the array).
    init(readingBigEndian bytes: [UInt8], at: Int, count: Int, in box: CBCSEncryptor.MP4Box?) throws {
        let limit = box.map { Swift.min($0.end, bytes.count) } ?? bytes.count
        guard at >= 0, count <= limit - at else {
            throw CBCSEncryptor.Failure("a \(count)-byte field at \(at) runs past the end of \(box.map { "the \($0.type) box" } ?? "the data")")
        }
        self = bytes[at..<at + count].reduce(Self.zero) { $0 << 8 | Self($1) }
    }
}

// MARK: init segment

extension CBCSEncryptor {
    /// The sample entry types protected: AVC with parameter sets out of band or in band.
    static let avcEntries: Set<String> = ["avc1", "avc3"]

    /// `moov` with its AVC track's sample entries protected and a Common `pssh` at its end.
    static func protectedMoov(_ bytes: [UInt8], _ moov: MP4Box, kid: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        let video = try videoTrak(bytes, moov)
        var body: [UInt8] = []
        for child in try MP4Box.list(bytes, in: moov.body..<moov.end) {
            if child.start == video.start {
                body += try rewriting(bytes, child, path: ["mdia", "minf", "stbl", "stsd"]) { try protectedStsd(bytes, $0, kid: kid, iv: iv) }
            } else {
                body += bytes[child.range]
            }
        }
        body += try pssh(kid: kid)
        return try makeBox("moov", body)
    }

    /// The only `trak` of `moov` whose sample description holds an AVC entry.
    static func videoTrak(_ bytes: [UInt8], _ moov: MP4Box) throws -> MP4Box {
        let traks = try MP4Box.list(bytes, in: moov.body..<moov.end).filter { $0.type == "trak" }
        let video = try traks.filter { trak in
            let stsd = try descendant(bytes, of: trak, path: ["mdia", "minf", "stbl", "stsd"])
            return try sampleEntries(bytes, stsd).contains { avcEntries.contains($0.type) }
        }
        guard video.count == 1, let only = video.first else { throw Failure("the moov has \(video.count) AVC video tracks, not one") }
        return only
    }

    /// The sample entries of `stsd` (after its version, flags and entry count).
    static func sampleEntries(_ bytes: [UInt8], _ stsd: MP4Box) throws -> [MP4Box] {
        let count = try u32(bytes, stsd.body + 4, in: stsd)
        let entries = try MP4Box.list(bytes, in: stsd.body + 8..<stsd.end)
        guard entries.count == count else { throw Failure("the stsd box says \(count) entries and holds \(entries.count)") }
        return entries
    }

    /// `stsd` with each AVC entry renamed `encv` and given a `sinf`.
    static func protectedStsd(_ bytes: [UInt8], _ stsd: MP4Box, kid: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        let entries = try sampleEntries(bytes, stsd)
        var body = Array(bytes[stsd.body..<stsd.body + 8])
        for entry in entries {
            guard avcEntries.contains(entry.type) else { body += bytes[entry.range]; continue }
            // a VisualSampleEntry's fixed fields (78 bytes) come before its child boxes
            guard entry.end - entry.body >= 78 else { throw Failure("the \(entry.type) sample entry is cut (\(entry.size) bytes)") }
            body += try makeBox("encv", Array(bytes[entry.body..<entry.end]) + sinf(original: entry.type, kid: kid, iv: iv))
        }
        return try makeBox("stsd", body)
    }

    /// `sinf`: the original format, the `cbcs` scheme, and `tenc` v1 (pattern 1:9, protected, no
    /// per-sample IV, `kid`, the 16-byte constant IV).
    static func sinf(original: String, kid: [UInt8], iv: [UInt8]) throws -> [UInt8] {
        let frma = try makeBox("frma", Array(original.utf8))
        let schm = try makeFullBox("schm", version: 0, flags: 0, Array("cbcs".utf8) + bigEndian(UInt32(0x0001_0000)))
        let pattern = UInt8(cryptBlocks << 4 | skipBlocks)
        let tenc = try makeFullBox("tenc", version: 1, flags: 0, [0, pattern, 1, 0] + kid + [UInt8(iv.count)] + iv)
        return try makeBox("sinf", frma + schm + makeBox("schi", tenc))
    }

    /// A W3C Common `pssh` v1 naming `kid`, no data.
    static func pssh(kid: [UInt8]) throws -> [UInt8] {
        try makeFullBox("pssh", version: 1, flags: 0, commonSystemID + bigEndian(UInt32(1)) + kid + bigEndian(UInt32(0)))
    }
}

// MARK: fragments

extension CBCSEncryptor {
    /// One `trun`: where its data offset is written, its value, its samples' sizes.
    struct Run {
        /// The index of the `data_offset` field in the segment.
        var dataOffsetAt: Int
        /// `data_offset`, from the start of the `moof` (default-base-is-moof).
        var dataOffset: Int
        /// Each sample's size in bytes.
        var sampleSizes: [Int]
    }

    /// One `traf`: its track, its children, its runs.
    struct TrackFragment {
        /// The `traf` box.
        var box: MP4Box
        /// `tfhd.track_ID`.
        var trackID: UInt32
        /// Its child boxes.
        var children: [MP4Box]
        /// Its `trun`s in order.
        var runs: [Run]
    }

    /// A sample's subsample: clear bytes, then protected bytes.
    struct Subsample {
        /// Clear bytes (16-bit in `senc`).
        var clear: Int
        /// Protected bytes, every tenth whole block from their start encrypted.
        var protected: Int
    }

    /// tfhd flags: base-data-offset-present, default-sample-size-present, default-base-is-moof.
    static let baseDataOffsetPresent: UInt32 = 0x1, defaultSizePresent: UInt32 = 0x10, defaultBaseIsMoof: UInt32 = 0x02_0000
    /// The most samples one `trun` may claim.
    static let maxRunSamples: UInt32 = 1 << 20
    /// The most subsamples of one sample: its `senc` entry (2 + 6 each) must fit `saiz`'s 8 bits.
    static let maxSubsamples = (0xFF - 2) / 6

    /// The new `moof`: the video `traf`'s samples encrypted in `bytes` and described, every
    /// `trun.data_offset` moved by the bytes the `moof` grew.
    static func encryptFragment(_ bytes: inout [UInt8], _ moof: MP4Box, mdats: [Range<Int>], key: [UInt8], iv: [UInt8],
                                trackID: UInt32?) throws -> [UInt8] {
        let children = try MP4Box.list(bytes, in: moof.body..<moof.end)
        let fragments = try children.filter { $0.type == "traf" }.map { try trackFragment(bytes, $0) }
        let video: TrackFragment
        if let trackID {
            let found = fragments.filter { $0.trackID == trackID }
            guard found.count <= 1 else { throw Failure("the moof at \(moof.start) has \(found.count) trafs of track \(trackID)") }
            guard let only = found.first else { return Array(bytes[moof.range]) }
            video = only
        } else {
            guard fragments.count == 1, let only = fragments.first else {
                throw Failure("the moof at \(moof.start) has \(fragments.count) trafs: name the video track")
            }
            video = only
        }
        let aux = try encryptSamples(&bytes, video, moof: moof, mdats: mdats, key: key, iv: iv)
        // built twice: first to learn the size and where senc lands, then with those
        let draft = try assembleMoof(bytes, moof, children, fragments, video: video, aux: aux, delta: 0, saioOffset: 0)
        return try assembleMoof(bytes, moof, children, fragments, video: video, aux: aux,
                                delta: draft.bytes.count - moof.size, saioOffset: draft.sencAt + 16).bytes
    }

    /// `traf`'s track ID, children and runs; throws unless its data offsets count from the `moof`.
    static func trackFragment(_ bytes: [UInt8], _ traf: MP4Box) throws -> TrackFragment {
        let children = try MP4Box.list(bytes, in: traf.body..<traf.end)
        let tfhds = children.filter { $0.type == "tfhd" }
        guard tfhds.count == 1, let tfhd = tfhds.first else { throw Failure("a traf has \(tfhds.count) tfhd boxes, not one") }
        let flags = try u32(bytes, tfhd.body, in: tfhd) & 0xFF_FFFF
        guard flags & defaultBaseIsMoof != 0, flags & baseDataOffsetPresent == 0 else {
            throw Failure("the traf's tfhd (flags 0x\(String(flags, radix: 16))) is not default-base-is-moof")
        }
        let trackID = try u32(bytes, tfhd.body + 4, in: tfhd)
        var defaultSize: Int?
        if flags & defaultSizePresent != 0 {
            let at = tfhd.body + 8 + (flags & 0x2 != 0 ? 4 : 0) + (flags & 0x8 != 0 ? 4 : 0)
            defaultSize = Int(try u32(bytes, at, in: tfhd))
        }
        let runs = try children.filter { $0.type == "trun" }.map { try parseRun(bytes, $0, defaultSize: defaultSize) }
        return TrackFragment(box: traf, trackID: trackID, children: children, runs: runs)
    }

    /// A `trun`'s data offset and sample sizes (its own, or `defaultSize`).
    static func parseRun(_ bytes: [UInt8], _ trun: MP4Box, defaultSize: Int?) throws -> Run {
        let flags = try u32(bytes, trun.body, in: trun) & 0xFF_FFFF
        let count = try u32(bytes, trun.body + 4, in: trun)
        guard flags & 0x1 != 0 else { throw Failure("a trun has no data_offset") }
        guard count <= maxRunSamples else { throw Failure("a trun claims \(count) samples") }
        let dataOffset = Int(Int32(bitPattern: try u32(bytes, trun.body + 8, in: trun)))
        let first = trun.body + 12 + (flags & 0x4 != 0 ? 4 : 0)
        let fields = [UInt32(0x100), 0x200, 0x400, 0x800].filter { flags & $0 != 0 }.count
        let sizeField = flags & 0x100 != 0 ? 4 : 0
        var sizes: [Int] = []
        sizes.reserveCapacity(Int(count))
        for i in 0..<Int(count) {
            if flags & 0x200 != 0 {
                sizes.append(Int(try u32(bytes, first + i * fields * 4 + sizeField, in: trun)))
            } else if let defaultSize {
                sizes.append(defaultSize)
            } else {
                throw Failure("a trun gives no sample sizes and its tfhd no default (trex defaults are not read)")
            }
        }
        return Run(dataOffsetAt: trun.body + 8, dataOffset: dataOffset, sampleSizes: sizes)
    }

    /// Encrypts each sample of `video` in `bytes`; its `senc` entries (subsample count, then
    /// clear and protected counts) one per sample.
    static func encryptSamples(_ bytes: inout [UInt8], _ video: TrackFragment, moof: MP4Box, mdats: [Range<Int>],
                               key: [UInt8], iv: [UInt8]) throws -> [[UInt8]] {
        var entries: [[UInt8]] = []
        for run in video.runs {
            var at = moof.start + run.dataOffset
            for size in run.sampleSizes {
                let sample = at..<at + size
                // after its moof, inside an mdat: where a grown moof moves it by as much as it grew
                guard sample.lowerBound >= moof.end,
                      size == 0 || mdats.contains(where: { $0.contains(sample.lowerBound) && sample.upperBound <= $0.upperBound }) else {
                    throw Failure("a sample of \(size) bytes at \(at) lies outside the mdats after its moof")
                }
                let subsamples = try subsamples(bytes, sample: sample)
                guard subsamples.count <= maxSubsamples else {
                    throw Failure("a sample at \(at) needs \(subsamples.count) subsamples, more than saiz's 8-bit sizes can describe")
                }
                try encrypt(&bytes, sample: sample, subsamples: subsamples, key: key, iv: iv)
                entries.append(sencEntry(subsamples))
                at += size
            }
        }
        return entries
    }

    /// The subsamples of an AVC sample of 4-byte-length NAL units.
    static func subsamples(_ bytes: [UInt8], sample: Range<Int>) throws -> [Subsample] {
        var result: [Subsample] = []
        var clear = 0
        var at = sample.lowerBound
        while at < sample.upperBound {
            let left = sample.upperBound - at
            guard left >= 5 else { throw Failure("\(left) stray bytes end the sample at \(sample.lowerBound)") }
            let length = Int(try u32(bytes, at))
            guard length >= 1, length <= left - 4 else { throw Failure("a NAL unit of \(length) bytes overruns its sample at \(sample.lowerBound)") }
            let type = bytes[at + 4] & 0x1F
            let protected = 4 + length - clearHead
            if (type == 1 || type == 5) && protected >= 16 {
                result += split(Subsample(clear: clear + clearHead, protected: protected))
                clear = 0
            } else {
                clear += 4 + length
            }
            at += 4 + length
        }
        if clear > 0 { result += split(Subsample(clear: clear, protected: 0)) }
        return result
    }

    /// `subsample` as `senc` can write it: clear runs of at most 65535 bytes ahead of it.
    static func split(_ subsample: Subsample) -> [Subsample] {
        var result: [Subsample] = []
        var clear = subsample.clear
        while clear > 0xFFFF {
            result.append(Subsample(clear: 0xFFFF, protected: 0))
            clear -= 0xFFFF
        }
        result.append(Subsample(clear: clear, protected: subsample.protected))
        return result
    }

    /// Encrypts the protected bytes of `sample`: per subsample the chain restarts at `iv`, one
    /// block encrypted, nine skipped, a partial block at the end left clear.
    static func encrypt(_ bytes: inout [UInt8], sample: Range<Int>, subsamples: [Subsample], key: [UInt8], iv: [UInt8]) throws {
        var at = sample.lowerBound
        for subsample in subsamples {
            at += subsample.clear
            var chain = iv
            var offset = 0
            while subsample.protected - offset >= 16 * cryptBlocks {
                try AES128.encryptCBCBlocks(&bytes, range: at + offset..<at + offset + 16 * cryptBlocks, key: key, chain: &chain)
                offset += 16 * (cryptBlocks + skipBlocks)
            }
            at += subsample.protected
        }
    }

    /// One sample's `senc` entry: subsample count, then each clear (16-bit) and protected (32-bit) count.
    static func sencEntry(_ subsamples: [Subsample]) -> [UInt8] {
        subsamples.reduce(bigEndian(UInt16(subsamples.count))) {
            $0 + bigEndian(UInt16($1.clear)) + bigEndian(UInt32($1.protected))
        }
    }

    /// The `moof` rebuilt: each `trun.data_offset` moved by `delta`, the video `traf` ending in
    /// `saiz`, `saio` (pointing at `saioOffset`) and `senc`. Also where `senc` starts in it.
    static func assembleMoof(_ bytes: [UInt8], _ moof: MP4Box, _ children: [MP4Box], _ fragments: [TrackFragment],
                             video: TrackFragment, aux: [[UInt8]], delta: Int, saioOffset: Int) throws -> (bytes: [UInt8], sencAt: Int) {
        var body: [UInt8] = []
        var sencAt = 0
        for child in children {
            guard let fragment = fragments.first(where: { $0.box.start == child.start }) else {
                body += bytes[child.range]
                continue
            }
            var traf = try movedRuns(bytes, fragment, delta: delta)
            if fragment.box.start == video.box.start {
                let saiz = try self.saiz(aux), saio = try self.saio(saioOffset)
                // 8: the moof's header, 8: the traf's
                sencAt = 8 + body.count + 8 + traf.count + saiz.count + saio.count
                traf += saiz + saio + (try senc(aux))
            }
            body += try makeBox("traf", traf)
        }
        return (try makeBox("moof", body), sencAt)
    }

    /// The children of `fragment`'s `traf`, each `trun.data_offset` moved by `delta`.
    static func movedRuns(_ bytes: [UInt8], _ fragment: TrackFragment, delta: Int) throws -> [UInt8] {
        var out: [UInt8] = []
        var runs = fragment.runs.makeIterator()
        for child in fragment.children {
            var copy = Array(bytes[child.range])
            if child.type == "trun", let run = runs.next() {
                let moved = run.dataOffset + delta
                guard let value = Int32(exactly: moved) else { throw Failure("a data_offset of \(moved) does not fit 32 bits") }
                put(UInt32(bitPattern: value), into: &copy, at: run.dataOffsetAt - child.start)
            }
            out += copy
        }
        return out
    }

    /// `senc` (flags 0x2: subsamples; no per-sample IV, the IV is constant) of `aux`.
    static func senc(_ aux: [[UInt8]]) throws -> [UInt8] {
        try makeFullBox("senc", version: 0, flags: 0x2, aux.reduce(bigEndian(UInt32(aux.count)), +))
    }

    /// `saiz`: each sample's auxiliary info size (one default when all are equal).
    static func saiz(_ aux: [[UInt8]]) throws -> [UInt8] {
        let sizes = aux.map(\.count)
        guard sizes.allSatisfy({ $0 <= 0xFF }) else { throw Failure("a sample's auxiliary info passes saiz's 8-bit sizes") }
        let uniform = sizes.allSatisfy { $0 == sizes.first }
        let table = uniform ? [] : sizes.map { UInt8($0) }
        let defaultSize = uniform ? UInt8(sizes.first ?? 0) : 0
        return try makeFullBox("saiz", version: 0, flags: 0, [defaultSize] + bigEndian(UInt32(sizes.count)) + table)
    }

    /// `saio`: one offset, from the start of the `moof`, to the first sample's auxiliary info.
    static func saio(_ offset: Int) throws -> [UInt8] {
        guard let value = UInt32(exactly: offset) else { throw Failure("a saio offset of \(offset) does not fit 32 bits") }
        return try makeFullBox("saio", version: 0, flags: 0, bigEndian(UInt32(1)) + bigEndian(value))
    }

    /// `sidx` with its first offset and each referenced size grown by the `moof`s (start → bytes
    /// grown) that start inside what it spans.
    static func movedSidx(_ bytes: [UInt8], _ sidx: MP4Box, growth: [Int: Int]) throws -> [UInt8] {
        var out = Array(bytes[sidx.range])
        let version = try byte(bytes, sidx.body, in: sidx)
        let width = version == 0 ? 4 : 8
        let firstOffsetAt = sidx.body + 12 + width
        let firstOffset = width == 4 ? UInt64(try u32(bytes, firstOffsetAt, in: sidx)) : try u64(bytes, firstOffsetAt, in: sidx)
        guard firstOffset < 1 << 40 else { throw Failure("a sidx first_offset of \(firstOffset)") }
        let countAt = firstOffsetAt + width + 2
        let count = Int(try u16(bytes, countAt, in: sidx))
        guard 12 * count <= sidx.end - countAt - 2 else { throw Failure("the sidx at \(sidx.start) has \(count) references, too many for its size") }
        func grown(_ span: Range<Int>) -> Int { growth.filter { span.contains($0.key) }.reduce(0) { $0 + $1.value } }

        var cursor = sidx.end
        let movedFirst = Int(firstOffset) + grown(cursor..<cursor + Int(firstOffset))
        guard width == 8 || movedFirst <= Int(UInt32.max) else { throw Failure("a sidx first_offset of \(movedFirst) does not fit 32 bits") }
        put(UInt64(movedFirst), into: &out, at: firstOffsetAt - sidx.start, width: width)
        cursor += Int(firstOffset)
        for i in 0..<count {
            let at = countAt + 2 + 12 * i
            let word = try u32(bytes, at, in: sidx)
            let size = Int(word & 0x7FFF_FFFF)
            let moved = size + grown(cursor..<cursor + size)
            guard moved <= 0x7FFF_FFFF else { throw Failure("a sidx referenced_size of \(moved) does not fit 31 bits") }
            put(word & 0x8000_0000 | UInt32(moved), into: &out, at: at - sidx.start)
            cursor += size
        }
        return out
    }
}

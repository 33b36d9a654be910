import Foundation
import Interlude
import Testing
import Timing
import TestSupport
@testable import Playback

/// HLS packages as strict clients and splicers read them: one transport stream per run between
/// discontinuities (continuity counters carried across segments, the discontinuity indicator
/// exactly at `EXT-X-DISCONTINUITY`), `ffmpeg -xerror` and GStreamer's playbin playing them with
/// no complaint, and SCTE-35 splice times (read by threefive) on the segments' clock. For the
/// H.264 package of HLSOutputTests and a smart-rendered HEVC one.
@Suite(.serialized) struct HLSStrictClientTests {
    static let hevc = Task { try await offPool { try makeHEVCPackage() } }

    static func makeHEVCPackage() throws -> URL {
        var request = try SmartRenderHEVCTests.request("hevc-strict-pkg", container: .hls)
        request.hls.segmentDuration = MediaTime(seconds: 4)
        let result = try Stitcher(request: request).run()
        #expect(result.smartRendering?.used == true)
        return URL(fileURLWithPath: request.output).appendingPathComponent("index.m3u8")
    }

    static func h264() async throws -> URL {
        try await HLSOutputTests.packaged.value.dir.appendingPathComponent("index.m3u8")
    }

    static func expectClean(_ playlist: URL, discontinuities: Int, splices: Int) throws {
        let (entries, _) = try HLSPackageCheck.entries(playlist)
        #expect(entries.filter(\.discontinuity).count == discontinuities)
        let continuity = try HLSPackageCheck.continuityProblems(playlist)
        #expect(continuity.isEmpty, "\(continuity.prefix(5)) (\(continuity.count) in all)")
        let scte = try HLSPackageCheck.scte35Problems(playlist)
        #expect(scte.checked == splices && scte.problems.isEmpty, "\(scte)")
        let clients = try HLSPackageCheck.clientProblems(playlist)
        #expect(clients.isEmpty, "\(clients.joined(separator: "\n"))")
    }

    @Test func h264PackageIsOneStreamPerRunAndStrictClientsPlayIt() async throws {
        // pre | content | mid: two ads | content | post: 5 discontinuities; OUT ×3, IN ×2 before a segment
        try Self.expectClean(try await Self.h264(), discontinuities: 5, splices: 5)
    }

    @Test func smartRenderedHEVCPackageIsOneStreamPerRunAndStrictClientsPlayIt() async throws {
        // pre | content | mid1 | content | mid2 | content: copied HEVC between encoded ads
        try Self.expectClean(try await Self.hevc.value, discontinuities: 5, splices: 6)
    }

    @Test func strictClientsRejectAPackageWhoseSegmentsRestartTheirCounters() async throws {
        // The package as separately muxed segments had it: every PID's counter from 0 in every
        // segment, nothing flagged. Both clients (and the continuity check) must say so.
        let source = try await Self.h264().deletingLastPathComponent()
        let broken = FileManager.default.temporaryDirectory.appendingPathComponent("interlude-hls-restarted-\(getpid())")
        try? FileManager.default.removeItem(at: broken)
        try FileManager.default.createDirectory(at: broken, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: broken) }
        for name in try FileManager.default.contentsOfDirectory(atPath: source.path) {
            let data = try Data(contentsOf: source.appendingPathComponent(name))
            try (name.hasSuffix(".ts") ? TSPacketHeader.restartingCounters(data) : data).write(to: broken.appendingPathComponent(name))
        }
        let playlist = broken.appendingPathComponent("index.m3u8")
        #expect(try HLSPackageCheck.continuityProblems(playlist).count > 10)
        let ffmpeg = try await FieldCheck.check(playlist, with: .ffmpeg)
        #expect(!ffmpeg.clean && ffmpeg.report.contains("corrupt"), "\(ffmpeg.report)")
        let gst = try await FieldCheck.check(playlist, with: .gstreamer)
        #expect(!gst.clean && gst.report.contains("discontinuity"), "\(gst.report)")
    }

    @Test func scte35SectionsCarryTheTransportStreamOffset() throws {
        let s = SCTE35.spliceInsert(eventID: 1, outOfNetwork: true, at: MediaTime(seconds: 10), breakDuration: nil,
                                    ptsAdjustment: HLSPackager.timestampOffset)
        // pts_adjustment: the low 33 bits of bytes 4...8 (after encrypted_packet, encryption_algorithm)
        let bits = s[4..<9].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        #expect(bits & ((1 << 33) - 1) == 126_000, "1.4 s at 90 kHz")
        #expect(SCTE35.crc32MPEG2(s) == 0)
    }
}

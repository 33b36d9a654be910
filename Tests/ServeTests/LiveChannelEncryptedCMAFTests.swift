import Foundation
import Manifest
@testable import Serve
import TestSupport
import Testing
import Timing

/// A `LiveChannel` on a live origin of sample-encrypted CMAF (the demuxed test origin under
/// `ServeLiveSampleEncryptedCMAFTests.encryption`): what it keeps in the store goes when its
/// segment leaves the channel's history (the sound beside each video segment with it, an
/// initialization segment a key rotation left behind with the last segment under it), and a
/// sound that never comes is said and the segment skipped, never kept without it.
@Suite(.serialized) struct LiveChannelEncryptedCMAFTests {
    /// The `.enc.m4s` files of `folder` (store-relative), by name.
    static func kept(_ folder: URL, _ relative: String) -> Set<String> {
        Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(relative).path)) ?? []).filter { $0.hasSuffix(".enc.m4s") })
    }

    @Test func aSegmentsSoundGoesWithIt() async throws {
        let media = try await offPool { try LiveOriginMedia.make(seconds: 40) }
        // (the key rotated at the origin's segment 10)
        let origin = try LiveOrigin(media: media, windowSize: 3, initialSegments: 3, dash: true,
                                    sampleEncryption: ServeLiveSampleEncryptedCMAFTests.rotating)
        defer { origin.stop() }
        let folder = StoreFixture.folder("live-encrypted-cmaf-evict")
        defer { try? FileManager.default.removeItem(at: folder) }
        let gone = LineBox()
        let channel = try LiveChannel(name: "e", source: origin.url("/demuxed/master.m3u8"), folder: folder, history: .zero,
                                      evicted: { for p in $0 { gone.append(p) } })
        for _ in 0..<14 {
            try await channel.poll()
            origin.advance()
        }
        let w = try #require(await channel.window(rendition: "v0"))
        #expect((3...5).contains(w.segments.count), "the origin's window and no history: \(w.segments.map(\.sequence))")
        let rendition = "live/\(channel.storeName)/v0"
        let numbers = Set(w.segments.map { "\($0.sequence).enc.m4s" })
        #expect(Self.kept(folder, rendition) == numbers, "the video kept is the window's")
        #expect(Self.kept(folder, rendition + "/audio") == numbers, "the sound kept is the window's")
        for s in w.segments {
            let e = try #require(s.encryption)
            #expect(e.isCMAF && e.key?.method == .sampleAES && e.sound?.key == nil && e.sound.map { StoreFile.regular($0.path, in: folder) != nil } == true
                    && e.mediaStart?.count == 2, "segment \(s.sequence): \(e)")
        }
        // the evicted paths heard: each gone segment's video and sound
        #expect(gone.all.contains { $0.hasSuffix("/v0/0.enc.m4s") } && gone.all.contains { $0.hasSuffix("/v0/audio/0.enc.m4s") }, "\(gone.all.prefix(4))")
        #expect(channel.isEncryptedCMAF && channel.encryptedCMAFSaid?.hls == true && channel.encryptedCMAFSaid?.video.first?.value == "cbcs")
        // the key rotated: the segments kept are under the new key and map, the old map gone with
        // its last segment (and heard), the sound's (never rotated) kept
        #expect(w.segments.allSatisfy { $0.sequence >= ServeLiveSampleEncryptedCMAFTests.rotationAt && $0.encryption?.key == ServeLiveSampleEncryptedCMAFTests.rotatedKey })
        let inits = Set(((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(rendition).path)) ?? []).filter { $0.hasSuffix(".enc.mp4") })
        #expect(inits.count == 1 && inits != ["init-0.enc.mp4"] && w.segments.allSatisfy { $0.encryption?.initialization == rendition + "/" + (inits.first ?? "") },
                "one map kept, the new one: \(inits)")
        #expect(gone.all.contains(rendition + "/init-0.enc.mp4"), "\(gone.all.filter { $0.hasSuffix(".mp4") })")
        let sound = ((try? FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent(rendition + "/audio").path)) ?? []).filter { $0.hasSuffix(".enc.mp4") }
        #expect(sound.count == 1 && w.segments.allSatisfy { $0.encryption?.sound?.initialization == rendition + "/audio/" + (sound.first ?? "") },
                "the sound's initialization segment stays: \(sound)")
    }

    @Test func aSoundThatNeverComesIsSaidAndItsSegmentSkipped() async throws {
        let media = try await offPool { try LiveOriginMedia.make(seconds: 40) }
        let origin = try LiveOrigin(media: media, windowSize: 4, initialSegments: 4, dash: true,
                                    sampleEncryption: ServeLiveSampleEncryptedCMAFTests.encryption)
        defer { origin.stop() }
        // the master names an audio rendition whose playlist is gone
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.setHandler { request in
            guard request.path == "/master.m3u8" else { return HTTPTestServer.Response(status: 404, body: "gone", contentType: "text/plain") }
            let master = origin.demuxedMaster()
                .replacingOccurrences(of: "URI=\"a.m3u8\"", with: "URI=\"\(server.url("/a.m3u8"))\"")
                .replacingOccurrences(of: "\nv0.m3u8", with: "\n" + origin.url("/demuxed/v0.m3u8"))
            return HTTPTestServer.Response(body: master, contentType: "application/vnd.apple.mpegurl")
        }
        let folder = StoreFixture.folder("live-encrypted-cmaf-no-sound")
        defer { try? FileManager.default.removeItem(at: folder) }
        let log = LineBox()
        let channel = try LiveChannel(name: "n", source: server.url("/master.m3u8"), folder: folder, log: ServeLog { log.append($0) })
        for _ in 0..<(LiveChannel.fetchAttempts * 4) { try? await channel.poll() }
        #expect(await channel.window(rendition: "v0")?.segments.isEmpty ?? true, "nothing kept without its sound")
        let said = log.all.filter { $0.contains("\"live_origin_fault\"") && $0.contains("no audio segment of its time") }
        #expect(!said.isEmpty && said.allSatisfy { !$0.contains("\n") }, "\(log.all)")
        #expect(Self.kept(folder, "live/\(channel.storeName)/v0").isEmpty && Self.kept(folder, "live/\(channel.storeName)/v0/audio").isEmpty)
    }
}

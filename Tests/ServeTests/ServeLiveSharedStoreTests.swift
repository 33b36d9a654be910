import Foundation
import Serve
import Testing
import TestSupport

/// Two `interlude serve` nodes following one live channel into one store folder, as a fleet
/// does (docs/SERVE.md, "Scaling out"): each takes the origin's segments into a folder of its own
/// and publishes a segment only once it is whole, so neither reads the other's half-written file
/// nor finds one gone under it (issue 35: both nodes used to exit at start). Both keep polling,
/// and a session on each plays.
@Suite(.serialized) struct ServeLiveSharedStoreTests {
    /// A channel starting removes the intake folders of nodes gone (nothing written for
    /// `staleIntakeAge`), and of the layout before intake folders, and keeps a live node's.
    @Test func aStartingChannelRemovesTheIntakesOfNodesGone() throws {
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-intakes-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: store) }
        let fm = FileManager.default
        let old = Date(timeIntervalSinceNow: -(LiveChannel.staleIntakeAge + 60))
        for (folder, date) in [("live/ch/gone-host-1/main", old), ("live/ch/main", old), ("live/ch/live-host-2/main", Date())] {
            let dir = store.appendingPathComponent(folder)
            try fm.createDirectory(at: dir, withIntermediateDirectories: true)
            try Data([0x47]).write(to: dir.appendingPathComponent("7.ts"))
            try fm.setAttributes([.modificationDate: date], ofItemAtPath: dir.appendingPathComponent("7.ts").path)
            try fm.setAttributes([.modificationDate: date], ofItemAtPath: dir.path)
            try fm.setAttributes([.modificationDate: date], ofItemAtPath: dir.deletingLastPathComponent().path)
        }
        // the channel folder's own time is not an intake's
        try fm.setAttributes([.modificationDate: old], ofItemAtPath: store.appendingPathComponent("live/ch/live-host-2").path)
        try fm.setAttributes([.modificationDate: Date()], ofItemAtPath: store.appendingPathComponent("live/ch/live-host-2/main").path)
        let channel = try LiveChannel(name: "ch", source: "/nonexistent/live.m3u8", folder: store)
        let left = try fm.contentsOfDirectory(atPath: store.appendingPathComponent("live/ch").path).sorted()
        #expect(left == ["live-host-2"], "\(left)")
        #expect(!channel.intake.isEmpty && channel.storeName == "ch/\(channel.intake)")
        // a channel folder planted as a link out of the store: nothing behind it is removed
        let outside = FileManager.default.temporaryDirectory.appendingPathComponent("serve-intakes-outside-\(UUID().uuidString.prefix(8))")
        defer { try? fm.removeItem(at: outside) }
        let victim = outside.appendingPathComponent("old-folder")
        try fm.createDirectory(at: victim, withIntermediateDirectories: true)
        try Data([1]).write(to: victim.appendingPathComponent("precious"))
        try fm.setAttributes([.modificationDate: old], ofItemAtPath: victim.appendingPathComponent("precious").path)
        try fm.setAttributes([.modificationDate: old], ofItemAtPath: victim.path)
        try fm.createSymbolicLink(at: store.appendingPathComponent("live/planted"), withDestinationURL: outside)
        _ = try LiveChannel(name: "planted", source: "/nonexistent/live.m3u8", folder: store)
        #expect(fm.fileExists(atPath: victim.appendingPathComponent("precious").path), "a file outside the store was removed")
    }

    @Test func twoNodesFollowOneChannelIntoOneStore() async throws {
        // two rungs and a slow origin: both nodes' fetches of a segment overlap
        let media = try LiveOriginMedia.make(sizes: [PixelSize(width: 640, height: 360), PixelSize(width: 320, height: 180)], seconds: 60)
        let origin = try LiveOrigin(media: media, windowSize: 5, clock: .realTime, segmentChunkDelay: 0.05)
        defer { origin.stop() }
        let store = FileManager.default.temporaryDirectory.appendingPathComponent("serve-shared-live-\(UUID().uuidString.prefix(8))")
        defer { try? FileManager.default.removeItem(at: store) }
        let args = ["serve", "--live", "ch=\(origin.url("/live.m3u8"))", "--ads", "/nonexistent/tag.xml", "--store", store.path,
                    "--listen", "127.0.0.1:0"]
        // started together: their first polls fetch the same window at the same time
        let nodes = try [ServeProcess(args), ServeProcess(args)]
        defer { nodes.forEach { $0.stop() } }
        for node in nodes {
            #expect(await eventually(60) { !node.lines.all.isEmpty || !node.process.isRunning }, "\(node.log.all)")
        }
        // several polls (a 2 s target duration) with both taking in the same segments
        try await Task.sleep(nanoseconds: 7_000_000_000)
        for (i, node) in nodes.enumerated() {
            #expect(node.process.isRunning, "node \(i) exited: \(node.log.all.joined())")
            let url = try #require(node.lines.all.first, "node \(i) printed no URL: \(node.log.all.joined())")
            #expect(url.hasSuffix("/v1/master/ch/index.m3u8"))
            let ff = try await runOffPool(try Tools.ffmpegPath(), ["-nostdin", "-v", "error", "-xerror", "-i", url, "-t", "4", "-f", "null", "-"])
            #expect(ff.status == 0, "node \(i): \(ff.stderr)")
        }
        // each node's segments in a folder of its own, nothing half-written left beside them
        let channel = store.appendingPathComponent("live/ch")
        let folders = try FileManager.default.contentsOfDirectory(atPath: channel.path).filter { !$0.hasPrefix(".") }
        #expect(folders.count == 2, "\(folders)")
    }
}

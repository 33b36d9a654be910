import Foundation
import Serve
import TestSupport
import Testing
import Timing

/// The store's size bound: least recently used units go first, never one a live session pins.
@Suite(.serialized) struct ServeStoreEvictionTests {
    @Test func leastRecentlyUsedUnitsGoButPinnedOnesStay() async throws {
        let root = StoreFixture.folder("lru")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoreFixture.store(root) { $0.maxBytes = 1 }   // everything is over the bound
        let origin = try await store.cut("c", rendition: "180p", at: []).runs[0].map(\.path)
            + (try await store.cut("c", rendition: "90p", at: []).runs[0].map(\.path))
        store.pin(origin)
        let first = try await store.slate(rendition: store.rendition(named: "180p")!, duration: MediaTime(seconds: 1))
        #expect(store.file(forSegment: first[0].path) != nil, "the unit just made stays")
        let second = try await store.slate(rendition: store.rendition(named: "90p")!, duration: MediaTime(seconds: 1))
        #expect(store.file(forSegment: first[0].path) == nil, "the least recently used unpinned unit went")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(first[0].path).path))
        #expect(store.file(forSegment: second[0].path) != nil)
        #expect(origin.allSatisfy { store.file(forSegment: $0) != nil }, "pinned content stays")
        // released, the content is the least recently used and goes; asked again, it is packaged again
        store.unpin(origin)
        _ = try await store.slate(rendition: store.rendition(named: "90p")!, duration: MediaTime(seconds: 2))
        #expect(origin.allSatisfy { store.file(forSegment: $0) == nil })
        #expect(store.encodeCounts()["ladder"] == 1)
        _ = try await store.content("c")
        #expect(store.encodeCounts()["ladder"] == 2)
        #expect(store.file(forSegment: origin[0]) != nil)
    }

    /// A store that hands its transcodes to a queue shares its folder with a fleet: it never
    /// evicts, whatever its bound (one node's LRU would remove files other nodes' sessions play).
    @Test(.enabled(if: RedisProcess.available, "needs redis-server (make setup)"))
    func aStoreSharedThroughAJobQueueNeverEvicts() async throws {
        let root = StoreFixture.folder("lrushared")
        defer { try? FileManager.default.removeItem(at: root) }
        let redis = try RedisProcess()
        defer { redis.kill() }
        let queue = try RedisAdQueue(url: redis.url)
        let store = try StoreFixture.store(root) { $0.maxBytes = 1; $0.jobQueue = queue }
        let first = try await store.slate(rendition: store.rendition(named: "180p")!, duration: MediaTime(seconds: 1))
        _ = try await store.slate(rendition: store.rendition(named: "90p")!, duration: MediaTime(seconds: 1))
        #expect(store.file(forSegment: first[0].path) != nil, "nothing evicted in a shared folder")
    }

    @Test func anEvictedAdIsTranscodedAgainWhenAskedFor() async throws {
        let root = StoreFixture.folder("lruad")
        defer { try? FileManager.default.removeItem(at: root) }
        let server = try HTTPTestServer()
        server.route("/ad.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"],
                                                        body: try Data(contentsOf: try ServeStoreAdTests.adClip())))
        let store = try StoreFixture.store(root) { $0.maxBytes = 1 }
        guard case .ready(let first, _) = try await ServeStoreAdTests.settled(store, server.url("/ad.mp4"), "90p") else { Issue.record("ad"); return }
        _ = try await store.slate(rendition: store.rendition(named: "90p")!, duration: MediaTime(seconds: 1))   // pushes the ad out
        #expect(store.file(forSegment: first[0].path) == nil)
        guard case .pending = store.ad(mediaURL: server.url("/ad.mp4"), rendition: store.rendition(named: "90p")!) else { Issue.record("not queued again"); return }
        guard case .ready(let again, _) = try await ServeStoreAdTests.settled(store, server.url("/ad.mp4"), "90p") else { Issue.record("ad again"); return }
        #expect(again == first)
        #expect(store.encodeCounts()["ad"] == 2)
        #expect(store.file(forSegment: again[0].path) != nil)
    }
}

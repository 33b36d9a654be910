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
        let first = try await store.slate(rendition: "180p", duration: MediaTime(seconds: 1))
        #expect(store.file(forSegment: first[0].path) != nil, "the unit just made stays")
        let second = try await store.slate(rendition: "90p", duration: MediaTime(seconds: 1))
        #expect(store.file(forSegment: first[0].path) == nil, "the least recently used unpinned unit went")
        #expect(!FileManager.default.fileExists(atPath: root.appendingPathComponent(first[0].path).path))
        #expect(store.file(forSegment: second[0].path) != nil)
        #expect(origin.allSatisfy { store.file(forSegment: $0) != nil }, "pinned content stays")
        // released, the content is the least recently used and goes; asked again, it is packaged again
        store.unpin(origin)
        _ = try await store.slate(rendition: "90p", duration: MediaTime(seconds: 2))
        #expect(origin.allSatisfy { store.file(forSegment: $0) == nil })
        #expect(store.encodeCounts()["ladder"] == 1)
        _ = try await store.content("c")
        #expect(store.encodeCounts()["ladder"] == 2)
        #expect(store.file(forSegment: origin[0]) != nil)
    }
}

import Foundation
@testable import Serve
import TestSupport
import Testing

/// A live CMAF origin that names a new initialization segment before every segment (the same
/// bytes under a new URI each time, as a hostile or careless packager does) is followed, and the
/// channel keeps at most `LiveChannel.maxInitializations` of them fetched: no trail of files.
@Suite(.serialized) struct LiveChannelInitializationTests {
    @Test func anOriginNamingAMapPerSegmentLeavesNoTrail() async throws {
        let media = try await offPool { try LiveOriginMedia.make(seconds: 40) }
        let origin = try LiveOrigin(media: media, windowSize: 3, initialSegments: 3, faults: [LiveOriginFault(at: 0, .mapPerSegment)], cmaf: true)
        defer { origin.stop() }
        let folder = StoreFixture.folder("live-cmaf-map-per-segment")
        defer { try? FileManager.default.removeItem(at: folder) }
        let channel = try LiveChannel(name: "m", source: origin.url("/master.m3u8"), folder: folder, history: .zero)
        for _ in 0..<16 {
            try await channel.poll()
            origin.advance()
        }
        let w = try #require(await channel.window(rendition: "v0"))
        #expect(w.segments.count >= 3 && (w.segments.last?.sequence ?? 0) >= 14, "the origin followed: \(w.segments.map(\.sequence))")
        let files = FileManager.default.enumerator(atPath: folder.path)?.compactMap { $0 as? String } ?? []
        let inits = files.filter { ($0 as NSString).lastPathComponent.hasPrefix(".init") }
        #expect(!inits.isEmpty && inits.count <= 8 && LiveChannel.maxInitializations == 8, "\(inits.count) initialization segments kept: \(inits.sorted())")
    }
}

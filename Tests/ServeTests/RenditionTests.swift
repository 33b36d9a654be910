import Foundation
import Serve
import Testing

/// The ladder's rung is what store keys and URLs are built from: it survives a JSON round trip
/// (the store's index and, later, Redis hold it as JSON).
@Suite struct RenditionTests {
    @Test func aRenditionRoundTripsThroughJSON() throws {
        let r = Rendition(name: "720p", width: 1280, height: 720, videoBitrate: 3_000_000, audioBitrate: 128_000)
        let back = try JSONDecoder().decode(Rendition.self, from: JSONEncoder().encode(r))
        #expect(back == r)
        #expect(back != Rendition(name: "720p", width: 1280, height: 720, videoBitrate: 3_000_001, audioBitrate: 128_000))
    }
}

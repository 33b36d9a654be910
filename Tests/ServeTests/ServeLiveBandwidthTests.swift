import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// RFC 8216 §4.3.4.2: a variant's `BANDWIDTH` is its peak segment bit rate. A live session's
/// master is written before the segments it will list exist, so its `BANDWIDTH` is a bound: every
/// segment a viewer's playlists list (the origin's, the cut pieces, the ads and slate), its size
/// over its `EXTINF`, stays at or under its variant's `BANDWIDTH`.
@Suite(.serialized) struct ServeLiveBandwidthTests {
    typealias Rig = ServeLiveSessionTests.Rig

    @Test func everyListedSegmentStaysWithinItsVariantsBandwidth() async throws {
        let rig = try await Rig.start(breaks: ServeLiveSessionTests.twoBreaks, seconds: 40,
                                      sizes: [PixelSize(width: 320, height: 180), PixelSize(width: 160, height: 90)])
        defer { rig.stop() }
        _ = try await rig.warm()
        let created = try await curl(rig.url("/v1/session/ch"), method: "POST", body: "{}")
        let manifest = try #require(created.json?["manifestUrl"] as? String, "\(created.text)")
        let master = try await curl(rig.url(manifest)).text
        // each variant's URI and BANDWIDTH
        var variants: [(uri: String, bandwidth: Int)] = []
        var pending: Int?
        for line in master.split(separator: "\n").map(String.init) {
            if line.hasPrefix("#EXT-X-STREAM-INF:") {
                pending = line.components(separatedBy: "BANDWIDTH=").last.flatMap { Int($0.prefix { $0.isNumber }) }
            } else if !line.hasPrefix("#"), let b = pending {
                variants.append((line, b)); pending = nil
            }
        }
        #expect(variants.count == 2, "\(master)")
        var listed: [[Int: (duration: String, uri: String)]] = Array(repeating: [:], count: variants.count)
        for _ in 0..<18 {
            for (k, v) in variants.enumerated() {
                for e in ServeLiveSubtitlesTests.entries(try await curl(rig.url(v.uri)).text) where listed[k][e.sequence] == nil {
                    listed[k][e.sequence] = (e.duration, e.uri)
                }
            }
            rig.origin.advance()
            try await rig.channel.poll()
        }
        var over: [String] = []
        var peaks: [Int] = []
        for (k, v) in variants.enumerated() {
            var peak = 0
            for (n, e) in listed[k].sorted(by: { $0.key < $1.key }) {
                let body = try await curl(rig.url(e.uri)).body
                guard let seconds = Double(e.duration), seconds > 0 else { Issue.record("segment \(n): EXTINF \(e.duration)"); continue }
                let rate = Int(Double(body.count * 8) / seconds)
                peak = max(peak, rate)
                if rate > v.bandwidth { over.append("\(v.uri.split(separator: "/").last ?? "") \(n) \(e.uri.contains("/ads/") ? "ad" : e.uri.contains("/slate/") ? "slate" : "content"): \(rate) > \(v.bandwidth)") }
            }
            peaks.append(peak)
        }
        #expect(listed.allSatisfy { $0.values.contains { $0.uri.contains("/ads/") } }, "each variant listed an ad")
        #expect(over.isEmpty, "peaks \(peaks) against \(variants.map(\.bandwidth)): \(over)")
    }
}

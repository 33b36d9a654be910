import Foundation
@testable import Serve
import TestSupport
import Testing
import Timing

/// Packaging an MP4 into the store's ladder: every rung decodes to every source frame once, in
/// order; the top rung's video is the source's packets; segments align across rungs; a second
/// call and a restart reuse the package.
@Suite(.serialized) struct ServeStorePackagingTests {
    @Test func anMP4IsPackagedOnceIntoAnAlignedLadder() async throws {
        let root = StoreFixture.folder("package")
        defer { if ProcessInfo.processInfo.environment["KEEP_STORE"] == nil { try? FileManager.default.removeItem(at: root) } else { print("kept", root.path) } }
        let store = try StoreFixture.store(root)
        let content = try await store.content("c")
        #expect(content.duration == MediaTime(value: 4, timescale: 1))
        #expect(content.renditions.map(\.rendition.name) == ["180p", "90p"])
        #expect(content.renditions.allSatisfy { $0.codecs.hasPrefix("avc1.") && $0.codecs.hasSuffix(",mp4a.40.2") })
        var spans: [[MediaTime]] = []
        for (r, size) in [("180p", PixelSize(width: 320, height: 180)), ("90p", PixelSize(width: 160, height: 90))] {
            let cut = try await store.cut("c", rendition: r, at: [])
            #expect(cut.runs.count == 1)
            let segments = cut.runs[0]
            #expect(segments.count == 2)
            #expect(segments.reduce(MediaTime.zero) { $0 + $1.duration } == content.duration)
            spans.append(segments.map(\.duration))
            let joined = try StoreFixture.concatenate(segments, store: store, into: root, name: "\(r).ts")
            let ids = try StoreFixture.identities(joined, size: size)
            #expect(ids.map { $0?.frameIndex } == (0..<StoreFixture.frames).map { Optional($0) }, "\(r): every frame once, in order")
            #expect(ids.allSatisfy { $0?.sourceID == 3 })
            #expect(try await MediaVerifier.ffmpegErrors(joined).isEmpty)
            if r == "180p" {
                let source = try StoreFixture.videoPacketMD5s(try StoreFixture.clip(), mp4: true)
                #expect(source.count == StoreFixture.frames)
                #expect(try StoreFixture.videoPacketMD5s(joined, mp4: false) == source, "the top rung's video is the source's packets")
            }
        }
        #expect(spans[0] == spans[1], "segment boundaries are the same frames in every rung")
        // variants on one clock: each segment starts at the same PTS in every rung, and every rung
        // carries the source's audio packets
        let top = try await store.cut("c", rendition: "180p", at: []).runs[0], low = try await store.cut("c", rendition: "90p", at: []).runs[0]
        for (a, b) in zip(top, low) {
            #expect(try HLSPackageCheck.firstVideoFramePTS(store.file(forSegment: a.path)!) == HLSPackageCheck.firstVideoFramePTS(store.file(forSegment: b.path)!))
        }
        func audioMD5s(_ url: URL) throws -> [String] {
            let out = try Tools.ffmpeg(["-v", "error", "-i", url.path, "-map", "0:a:0", "-c", "copy", "-f", "framemd5", "-"])
            return String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").filter { !$0.hasPrefix("#") }
                .compactMap { $0.split(separator: ",").dropFirst(5).first.map(String.init) }
        }
        let topAudio = try audioMD5s(root.appendingPathComponent("180p.ts"))
        #expect(topAudio.count > 150)
        #expect(try audioMD5s(root.appendingPathComponent("90p.ts")) == topAudio)
        // a second call is a lookup; a restart on the same folder reuses the package
        _ = try await store.content("c")
        #expect(store.encodeCounts()["ladder"] == 1)
        #expect(store.queuedEncodes() == 0)
        let held = try FileManager.default.subpathsOfDirectory(atPath: root.appendingPathComponent("content").path)
            .filter { $0.hasSuffix(".ts") || $0.hasSuffix(".nut") || $0.hasSuffix(".json") }
            .reduce(Int64(0)) { $0 + ((try? FileManager.default.attributesOfItem(atPath: root.appendingPathComponent("content/\($1)").path)[.size] as? NSNumber)?.int64Value ?? 0) }
        #expect(store.storeBytes() == held, "the index counts what the folder holds")
        let again = try StoreFixture.store(root)
        let reopened = try await again.content("c")
        #expect(reopened.duration == content.duration)
        #expect(again.encodeCounts()["ladder"] == nil)
        #expect(again.file(forSegment: try await again.cut("c", rendition: "90p", at: []).runs[0][1].path) != nil)
    }

    @Test func segmentPathsOutsideTheStoreAreRefused() async throws {
        let root = StoreFixture.folder("paths")
        defer { try? FileManager.default.removeItem(at: root) }
        let store = try StoreFixture.store(root)
        _ = try await store.content("c")
        #expect(store.file(forSegment: "../index.json") == nil)
        #expect(store.file(forSegment: "/etc/passwd") == nil)
        #expect(store.file(forSegment: "index.json") == nil)
        #expect(store.file(forSegment: "content/nothing/180p/seg00000.ts") == nil)
        var st = stat()
        #expect(stat(root.path, &st) == 0 && st.st_mode & 0o777 == 0o700)
        await #expect(throws: StoreError.unknownContent("nope")) { try await store.content("nope") }
    }

    @Test func aSourceThatCannotBePackagedFailsInOneLineAndLeavesNothing() async throws {
        let root = StoreFixture.folder("badsource")
        defer { try? FileManager.default.removeItem(at: root) }
        let text = root.appendingPathComponent("notes.mp4")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        try Data("not a video".utf8).write(to: text)
        let silent = try await TestMedia.generated("serve-store-audio-only.mp4", arguments: ["-f", "lavfi", "-i", "sine=d=1", "-c:a", "aac"])
        let store = try MediaStore(options: StoreOptions(root: root.appendingPathComponent("store"), contents: [
            "text": text.path, "audio": silent.path, "gone": root.appendingPathComponent("nothing.mp4").path]))
        for (name, says) in [("text", "notes.mp4"), ("audio", "no video"), ("gone", "not a readable file")] {
            do {
                _ = try await store.content(name)
                Issue.record("\(name) was packaged")
            } catch {
                #expect("\(error)".contains(says), "\(name): \(error)")
                #expect(!"\(error)".contains("\n"))
            }
        }
        let left = try FileManager.default.contentsOfDirectory(atPath: root.appendingPathComponent("store").path)
        #expect(left.allSatisfy { $0 == "fetched" }, "nothing half-written: \(left)")
    }

    @Test func aLadderStringParsesAndBadOnesSayWhy() throws {
        let l = try Ladder.parse("720p:1280x720:3000k,360p:640x360:800k:64k")
        #expect(l == [Rendition(name: "720p", width: 1280, height: 720, videoBitrate: 3_000_000, audioBitrate: 128_000),
                      Rendition(name: "360p", width: 640, height: 360, videoBitrate: 800_000, audioBitrate: 64_000)])
        for bad in ["", "720p", "720p:1280x721:3000k", "a/b:640x360:1m", "x:640x360:fast", "x:640x360:1m,x:320x180:1m"] {
            #expect(throws: StoreError.self) { try Ladder.parse(bad) }
        }
        #expect(Ladder.defaults(width: 1920, height: 1080, sourceBitrate: 5_000_000).map(\.name) == ["1080p", "720p", "540p", "360p"])
        // the bitrates fall down the ladder even for a source below the per-pixel default (the
        // bundled 640x360 content at ~130 kb/s had a 240p rung advertising more than its top)
        for (w, h, rate) in [(1920, 1080, 5_000_000), (640, 360, 130_000), (1280, 720, 400_000)] {
            let rates = Ladder.defaults(width: w, height: h, sourceBitrate: rate).map(\.videoBitrate)
            #expect(zip(rates, rates.dropFirst()).allSatisfy { $0 > $1 }, "\(w)x\(h) at \(rate): \(rates)")
        }
        #expect(Ladder.defaults(width: 1920, height: 1080, sourceBitrate: 5_000_000).map(\.videoBitrate)[1] == 2_222_222)   // 5 Mb/s × 720p/1080p area, under the 2.76 Mb/s per-pixel default
    }

    /// Two nodes sharing a store folder package the same content at the same time (a fleet's
    /// first sessions): the first to publish wins, the other adopts its package instead of
    /// removing it and putting its own in place (before, the first node's records of its
    /// segments' sizes then no longer matched the files, and it refused to serve them), and a
    /// third node started afterwards adopts it without packaging.
    @Test func nodesPackagingAtOnceShareOnePackage() async throws {
        let root = StoreFixture.folder("package-race")
        defer { try? FileManager.default.removeItem(at: root) }
        let a = try StoreFixture.store(root), b = try StoreFixture.store(root)
        async let x = a.packagedContent("c")
        async let y = b.packagedContent("c")
        let (pa, pb) = try await (x, y)
        let paths = pa.renditions.flatMap { $0.segments.map(\.path) }
        #expect(!paths.isEmpty && paths == pb.renditions.flatMap { $0.segments.map(\.path) })
        for path in paths {
            #expect(a.file(forSegment: path) != nil, "node a serves \(path)")
            #expect(b.file(forSegment: path) != nil, "node b serves \(path)")
        }
        // a node whose index never heard of the package (index.json is each node's own)
        try? FileManager.default.removeItem(at: root.appendingPathComponent("index.json"))
        let c = try StoreFixture.store(root)
        let pc = try await c.packagedContent("c")
        #expect(pc.renditions.flatMap { $0.segments.map(\.path) } == paths)
        #expect(c.encodeCounts()["ladder"] == nil, "adopted, not packaged again: \(c.encodeCounts())")
        #expect(paths.allSatisfy { c.file(forSegment: $0) != nil })
    }
}

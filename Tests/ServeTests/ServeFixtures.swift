import Ads
import Foundation
import HTTPServer
import Interlude
@testable import Serve
import TestSupport
import Testing
import Timing

/// A `ServeMedia` for the HTTP side's tests: a content of 6 s segments (30 s), cut exactly at
/// any cue, ads whose readiness the test sets, slate in 2 s pieces; every segment a real file
/// whose bytes name it. The real store (MediaStore) is exercised by the end-to-end suite.
final class FixtureMedia: ServeMedia, @unchecked Sendable {
    // @unchecked Sendable: every var is touched under `lock`.
    let root: URL
    let lock = NSLock()
    var ads: [String: AdReadiness] = [:]
    var adCalls: [String] = []
    var cuts = 0
    let duration = MediaTime(seconds: 30)
    let renditions: [(rendition: Rendition, codecs: String)] = [
        (Rendition(name: "720p", width: 1280, height: 720, videoBitrate: 3_000_000, audioBitrate: 128_000), "avc1.64001f,mp4a.40.2"),
        (Rendition(name: "360p", width: 640, height: 360, videoBitrate: 800_000, audioBitrate: 96_000), "avc1.4d401e,mp4a.40.2"),
    ]

    /// The content's ad markers (an HLS origin's CUE-OUTs): none unless a test sets them.
    let originCues: [MediaTime]
    /// The contents it holds (all the same media).
    let names: Set<String>

    init(originCues: [MediaTime] = [], names: Set<String> = ["main"]) throws {
        self.originCues = originCues
        self.names = names
        root = FileManager.default.temporaryDirectory.appendingPathComponent("serve-fixture-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: root) }

    func setAd(_ url: String, _ r: AdReadiness) { lock.lock(); ads[url] = r; lock.unlock() }

    /// Ready ad segments: `seconds` split in 2 s pieces (the last shorter).
    static func adSegments(_ name: String, rendition: String, seconds: MediaTime) -> [StoredSegment] {
        var out: [StoredSegment] = []
        var at = MediaTime.zero
        while at < seconds {
            let d = MediaTime.min(MediaTime(seconds: 2), seconds - at)
            out.append(StoredSegment(path: "ads/\(name)/\(rendition)/seg\(out.count).ts", duration: d))
            at += d
        }
        return out
    }

    func content(_ name: String) async throws -> PreparedContent {
        guard names.contains(name) else { throw StoreFixtureError.unknown(name) }
        return PreparedContent(name: name, duration: duration, renditions: renditions, originCues: originCues)
    }

    func cut(_ content: String, rendition: String, at cues: [MediaTime]) async throws -> CutContent {
        lock.withLock { cuts += 1 }
        let six = MediaTime(seconds: 6)
        var runs: [[StoredSegment]] = [[]]
        var at = MediaTime.zero
        var index = 0
        var pending = cues.sorted()
        while at < duration {
            let end = at + six
            var start = at
            while let c = pending.first, c > start, c < end {
                runs[runs.count - 1].append(StoredSegment(path: "content/\(rendition)/cut\(index)-\(start.value)-\(start.timescale).ts", duration: c - start))
                runs.append([])
                start = c
                pending.removeFirst()
            }
            let path = start == at ? "content/\(rendition)/seg\(index).ts" : "content/\(rendition)/cut\(index)-\(start.value)-\(start.timescale).ts"
            runs[runs.count - 1].append(StoredSegment(path: path, duration: end - start))
            if let c = pending.first, c == end { runs.append([]); pending.removeFirst() }
            at = end; index += 1
        }
        return CutContent(cues: cues.sorted(), runs: runs)
    }

    func ad(mediaURL: String, rendition rung: Rendition) -> AdReadiness {
        let rendition = rung.name
        lock.lock(); defer { lock.unlock() }
        adCalls.append(mediaURL)
        guard let r = ads[mediaURL] else { return .failed(code: 401, reason: "unknown to the fixture") }
        if case .ready(let segs, let d) = r {
            return .ready(segs.map { StoredSegment(path: $0.path.replacingOccurrences(of: "/R/", with: "/\(rendition)/"), duration: $0.duration) }, duration: d)
        }
        return r
    }

    func slate(rendition: Rendition, duration: MediaTime) async throws -> [StoredSegment] {
        FixtureMedia.adSegments("slate", rendition: rendition.name, seconds: duration).map {
            StoredSegment(path: $0.path.replacingOccurrences(of: "ads/slate", with: "slate"), duration: $0.duration)
        }
    }

    func file(forSegment path: String) -> URL? {
        guard path.hasPrefix("content/") || path.hasPrefix("ads/") || path.hasPrefix("slate/") else { return nil }
        let url = root.appendingPathComponent(path)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        if !FileManager.default.fileExists(atPath: url.path) { try? Data(("bytes of " + path).utf8).write(to: url) }
        return url
    }

    func encodeCounts() -> [String: Int] { lock.lock(); defer { lock.unlock() }; return ["cut": cuts] }
}

enum StoreFixtureError: Error { case unknown(String) }

/// A VAST document with one linear ad, its media at `media`, beacons to `tracker`.
func vast(id: String, media: String, tracker: String, seconds: Int = 6) -> String {
    """
    <VAST version="4.1"><Ad id="\(id)"><InLine><AdSystem>fixture</AdSystem><AdTitle>\(id)</AdTitle>
    <Impression><![CDATA[\(tracker)/imp?ad=\(id)]]></Impression>
    <Error><![CDATA[\(tracker)/error?ad=\(id)&code=[ERRORCODE]]]></Error>
    <Creatives><Creative id="cr-\(id)"><Linear><Duration>00:00:\(String(format: "%02d", seconds))</Duration>
    <TrackingEvents>
    <Tracking event="start"><![CDATA[\(tracker)/start?ad=\(id)]]></Tracking>
    <Tracking event="firstQuartile"><![CDATA[\(tracker)/q1?ad=\(id)]]></Tracking>
    <Tracking event="midpoint"><![CDATA[\(tracker)/mid?ad=\(id)]]></Tracking>
    <Tracking event="thirdQuartile"><![CDATA[\(tracker)/q3?ad=\(id)]]></Tracking>
    <Tracking event="complete"><![CDATA[\(tracker)/complete?ad=\(id)]]></Tracking>
    </TrackingEvents>
    <MediaFiles><MediaFile delivery="progressive" type="video/mp4" width="1280" height="720"><![CDATA[\(media)]]></MediaFile></MediaFiles>
    </Linear></Creative></Creatives></InLine></Ad></VAST>
    """
}

/// A VMAP with a mid-roll at `cue` seconds holding `vast`.
func vmap(midroll cue: String, _ vast: String) -> String {
    """
    <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
    <vmap:AdBreak timeOffset="\(cue)" breakType="linear" breakId="mid1">
    <vmap:AdSource id="s1" allowMultipleAds="false" followRedirects="true"><vmap:VASTAdData>\(vast)</vmap:VASTAdData></vmap:AdSource>
    </vmap:AdBreak></vmap:VMAP>
    """
}

/// An origin's files by path: their bytes and `Content-Type`.
typealias OriginFiles = [String: (Data, String)]

extension HTTPTestServer {
    /// Serves `files` (those `where` takes) at their paths, with their content types and `headers`.
    func serve(_ files: OriginFiles, headers: [String: String] = [:], where take: (String) -> Bool = { _ in true }) {
        for (path, (data, type)) in files where take(path) {
            route(path, Response(headers: headers.merging(["Content-Type": type]) { _, t in t }, body: data))
        }
    }
}

/// An ad server whose `/vmap` holds one 2 s ad (the store tests' ad clip) as a mid-roll at 1.55 s.
func midrollAdServer() throws -> HTTPTestServer {
    let ads = try HTTPTestServer()
    ads.route("/adA.mp4", HTTPTestServer.Response(headers: ["Content-Type": "video/mp4"], body: try Data(contentsOf: try ServeStoreAdTests.adClip())))
    ads.route("/vmap", body: vmap(midroll: "00:00:01.550", vast(id: "adA", media: ads.url("/adA.mp4"), tracker: ads.url("/t"), seconds: 2)))
    return ads
}

/// A session of `content` on `running` whose `rendition` playlist has its ad in it (the first
/// sessions leave the ad out while it is made, as MediaTailor's VOD sessions do): sessions are
/// made until one has it (up to 60 s). Its id and that playlist.
func readySession(_ running: RunningService, content: String, rendition: String = "180p") async throws -> (id: String, playlist: String) {
    let deadline = Date().addingTimeInterval(60)
    while Date() < deadline {
        let r = try await curl(running.url("/v1/session/\(content)"), method: "POST", body: "{}")
        guard let manifest = r.json?["manifestUrl"] as? String else { throw StoreFixtureError.unknown("no session: \(r.text.prefix(200))") }
        let id = String(manifest.dropFirst("/v1/sessions/".count).prefix { $0 != "/" })
        let playlist = try await curl(running.url("/v1/sessions/\(id)/\(rendition).m3u8")).text
        if playlist.contains("/v1/segments/ads/") { return (id, playlist) }
        try await Task.sleep(nanoseconds: 200_000_000)
    }
    throw StoreFixtureError.unknown("the ad never became ready")
}

/// A running service on 127.0.0.1 over `media`, with its log lines collected.
final class RunningService: @unchecked Sendable {
    // @unchecked Sendable: immutable after init; the log box locks itself.
    let service: ServeService
    let port: UInt16

    init(media: any ServeMedia, adsTemplate: String, configure: (inout ServeConfig) -> Void = { _ in }) throws {
        var config = ServeConfig()
        config.port = 0
        config.contents = [ContentSource(name: "main", source: "fixture")]
        config.adsTemplate = adsTemplate
        config.threads = 4
        configure(&config)
        let box = LineBox()
        service = ServeService(config: config, media: media, beacons: BeaconSender(timeout: 3), log: ServeLog { box.append($0) })
        port = try service.start()
        self.box = box
    }
    private let box: LineBox
    var log: [String] { box.all }

    func url(_ path: String) -> String { "http://127.0.0.1:\(port)\(path)" }
    // The stop waits for the service's request threads, which may wait for Swift's concurrency
    // pool: on a thread of its own, never on the pool the test's own code runs on.
    deinit { let s = service; Thread.detachNewThread { s.stop(grace: 1) } }
}

/// A running `interlude serve` (or any `interlude` command): the lines it prints on standard
/// output (its URLs) as they come, and its standard error once it ends.
final class ServeProcess: @unchecked Sendable {
    // @unchecked Sendable: the process is only read after `run()`; the boxes lock themselves.
    let process = Process()
    /// Standard output, line by line.
    let lines = LineBox()
    /// Standard error, whole, once the process has closed it.
    let log = LineBox()

    /// Starts the debug build's `interlude` with `args`.
    init(_ args: [String]) throws {
        process.executableURL = ServeCommandTests.binary
        process.arguments = args
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let lines = self.lines, log = self.log
        Thread {
            var buffer = Data()
            while true {
                let d = out.fileHandleForReading.availableData
                if d.isEmpty { break }
                buffer.append(d)
                while let nl = buffer.firstIndex(of: 10) {
                    lines.append(String(decoding: buffer[..<nl], as: UTF8.self))
                    buffer = Data(buffer[(nl + 1)...])
                }
            }
        }.start()
        Thread { log.append(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)) }.start()
    }

    /// SIGTERM when it still runs, and waits for it to end.
    func stop() {
        if process.isRunning { kill(process.processIdentifier, SIGTERM) }
        process.waitUntilExit()
    }
}

final class LineBox: @unchecked Sendable {
    // @unchecked Sendable: `lines` is touched under `lock`.
    private let lock = NSLock()
    private var lines: [String] = []
    func append(_ s: String) { lock.lock(); lines.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return lines }
}


/// One HTTP exchange done by the curl CLI (an independent client).
struct CurlResult {
    var status: Int
    var body: Data
    var text: String { String(decoding: body, as: UTF8.self) }
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
}

/// Runs a program to completion; stdout and the exit status.
func run(_ executable: String, _ arguments: [String], stdin: Data? = nil) throws -> (status: Int32, stdout: Data, stderr: String) {
    let p = Process()
    p.executableURL = URL(fileURLWithPath: executable)
    p.arguments = arguments
    let out = Pipe(), err = Pipe()
    p.standardOutput = out; p.standardError = err
    let input = Pipe()
    p.standardInput = input
    try p.run()
    if let stdin { input.fileHandleForWriting.write(stdin) }
    try? input.fileHandleForWriting.close()
    let errBytes = LineBox()
    let errDone = DispatchSemaphore(value: 0)
    Thread { errBytes.append(String(decoding: err.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)); errDone.signal() }.start()
    let outData = out.fileHandleForReading.readDataToEndOfFile()
    errDone.wait()
    p.waitUntilExit()
    return (p.terminationStatus, outData, errBytes.all.joined())
}

/// `curl` a URL: method, body, extra headers.
/// Runs off Swift's concurrency pool (the service's handlers need the pool while curl waits).
/// `timeout` only guards against a hang: the service's own deadlines answer well before it.
/// A playlist of the service (`PlaylistConformance.applies`) answered 200 is checked against RFC 8216
/// and against its earlier fetches; each violation is an issue of the calling test.
func curl(_ url: String, method: String = "GET", body: String? = nil, headers: [String] = [], timeout: Int = 60) async throws -> CurlResult {
    let r = try await offPool { try curlBlocking(url, method: method, body: body, headers: headers, timeout: timeout) }
    if r.status == 200, method == "GET", PlaylistConformance.applies(to: url) {
        PlaylistConformance.record(PlaylistConformance.check(url, body: r.text), url: url)
    }
    return r
}

func curlBlocking(_ url: String, method: String, body: String?, headers: [String], timeout: Int) throws -> CurlResult {
    var args = ["-s", "-S", "--max-time", String(timeout), "-X", method, "-o", "-", "-w", "\n%{http_code}", url]
    for h in headers { args += ["-H", h] }
    if body != nil { args += ["--data-binary", "@-"] }
    let r = try run("/usr/bin/curl", args, stdin: body.map { Data($0.utf8) })
    var data = r.stdout
    guard let nl = data.lastIndex(of: UInt8(ascii: "\n")) else { return CurlResult(status: 0, body: data) }
    let status = Int(String(decoding: data[(nl + 1)...], as: UTF8.self)) ?? 0
    data = data[..<nl]
    return CurlResult(status: status, body: Data(data))
}

/// Python from the worktree's venv (`m3u8`, `threefive`), reading `stdin`; nil when the venv lacks it.
func venvPython(_ program: String, stdin: String) throws -> String? {
    let python = TestMedia.packageRoot.appendingPathComponent(".build/pyenv/bin/python3").path
    guard FileManager.default.isExecutableFile(atPath: python) else { return nil }
    let r = try run(python, ["-c", program], stdin: Data(stdin.utf8))
    guard r.status == 0 else { throw StoreFixtureError.unknown("python failed: \(r.stderr)") }
    return String(decoding: r.stdout, as: UTF8.self)
}

/// Python with only its standard library: the venv's, else the system's.
func stdlibPython(_ program: String, stdin: String) throws -> String {
    if let out = try venvPython(program, stdin: stdin) { return out }
    let r = try run("/usr/bin/python3", ["-c", program], stdin: Data(stdin.utf8))
    guard r.status == 0 else { throw StoreFixtureError.unknown("python failed: \(r.stderr)") }
    return String(decoding: r.stdout, as: UTF8.self)
}

/// Polls `condition` every 20 ms for up to `seconds`.
func eventually(_ seconds: Double, _ condition: () -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline { if condition() { return true }; try? await Task.sleep(nanoseconds: 20_000_000) }
    return condition()
}

/// `run` off Swift's concurrency pool.
func runOffPool(_ executable: String, _ arguments: [String]) async throws -> (status: Int32, stdout: Data, stderr: String) {
    try await offPool { try run(executable, arguments) }
}

/// The field's `clients` play `url` (a session's master) to its end, each clean (`FieldCheck`:
/// its rules and allow-list), within two minutes each.
func expectPlayedClean(_ url: String, by clients: [FieldCheck.Client]) async throws {
    let master = try #require(URL(string: url))
    for client in clients {
        let verdict = try await offPool { try FieldCheck.check(master, with: client, timeout: 120) }
        #expect(verdict.clean, "\(client): \(verdict.report)")
    }
}

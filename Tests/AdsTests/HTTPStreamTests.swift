// The http(s) fetcher against a real HTTP server on 127.0.0.1: back-pressure, redirects, deadlines.
import Ads
import Foundation
import Testing
import TestSupport

/// A sink that takes the first chunk, then holds the transfer until released; after that it throws.
private final class GatedSink: @unchecked Sendable {
    // @unchecked Sendable: `taken` and `stopping` are guarded by `lock`; `gate` is a semaphore.
    private let lock = NSLock()
    private let gate = DispatchSemaphore(value: 0)
    private var taken: Int64 = 0
    private var stopping = false

    var bytesTaken: Int64 { lock.lock(); defer { lock.unlock() }; return taken }

    func take(_ data: Data) throws {
        lock.lock()
        let first = taken == 0
        taken += Int64(data.count)
        let stop = stopping
        lock.unlock()
        if stop { throw CocoaError(.userCancelled) }
        if first { gate.wait() }
    }

    func release() {
        lock.lock(); stopping = true; lock.unlock()
        gate.signal()
    }
}

@Suite struct HTTPStreamTests {
    /// A body is read only as fast as the sink takes it: while the sink holds its first chunk, the
    /// server can write no more than the sockets' buffers, not the 1 GiB it is offering (a
    /// fetcher that reads ahead into memory would take all of it: a fast server and a slow disk
    /// would fill memory up to the size cap).
    @Test func aSinkThatStopsTakingDataStopsTheServer() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/big.mp4", .generated(1 << 30))
        let sink = GatedSink()
        let fetch = Task {
            try await HTTPStream.fetch(URL(string: server.url("/big.mp4"))!, timeout: 60, maxBytes: 2 << 30) { try sink.take($0) }
        }
        // wait until the server's writes stop (they block on full socket buffers)
        var sent: Int64 = -1
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            try await Task.sleep(nanoseconds: 1_000_000_000)
            let now = server.bodyBytesSent("/big.mp4")
            if now == sent && sink.bytesTaken > 0 { break }
            sent = now
        }
        #expect(sink.bytesTaken > 0, "the sink got its first chunk")
        #expect(sent > 0 && sent < 64 << 20, "the server wrote \(sent >> 20) MB while the sink held one chunk")
        sink.release()
        do {
            _ = try await fetch.value
            Issue.record("the fetch ended without the sink's error")
        } catch {
            #expect("\(error)".contains("network error"), "\(error)")
        }
    }

    /// Redirects are followed up to `maxRedirects`, a relative `Location` against the request's
    /// URL; a loop ends with a one-line error instead of spinning.
    @Test func redirectsAreFollowedAndBounded() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/a", .redirect(to: "/b"))
        server.route("/b", .redirect(to: server.url("/dir/c"), status: 301))
        server.route("/dir/c", .redirect(to: "d", status: 307))
        server.route("/dir/d", .init(body: "arrived"))
        server.route("/loop", .redirect(to: "/loop"))
        let body = Locked(Data())
        let status = try await HTTPStream.fetch(URL(string: server.url("/a"))!, timeout: 60, maxBytes: 1 << 20) { d in body.update { $0.append(d) } }
        #expect(status == 200 && String(decoding: body.value, as: UTF8.self) == "arrived")
        await #expect(throws: FetchError.network("more than \(HTTPStream.maxRedirects) redirects")) {
            _ = try await HTTPStream.fetch(URL(string: server.url("/loop"))!, timeout: 60, maxBytes: 1 << 20) { _ in }
        }
        #expect(server.requestCount("/loop") == HTTPStream.maxRedirects + 1)
    }

    /// A redirect to an unspecified address (0.0.0.0, its other spellings, [::]) is refused: on
    /// Linux it would reach this machine. The target below is this very server, so a followed
    /// redirect would be answered.
    @Test func redirectsToUnspecifiedAddressesAreRefused() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        let port = URL(string: server.url("/"))!.port!
        server.route("/secret", .init(body: "reached"))
        for (i, host) in ["0.0.0.0", "0", "0x0", "0.1.2.3", "[::]", "[::ffff:0.0.0.0]"].enumerated() {
            let target = "http://\(host):\(port)/secret"
            server.route("/r\(i)", .redirect(to: target))
            await #expect(throws: FetchError.redirectRefused(target), "\(host)") {
                _ = try await HTTPStream.fetch(URL(string: server.url("/r\(i)"))!, timeout: 10, maxBytes: 1 << 20) { _ in }
            }
        }
        #expect(server.requestCount("/secret") == 0)
        #expect(!HTTPStream.isUnspecifiedAddress("127.0.0.1") && !HTTPStream.isUnspecifiedAddress("[::1]")
                && !HTTPStream.isUnspecifiedAddress("ads.example.com") && !HTTPStream.isUnspecifiedAddress("10.0.0.1"))
    }

    /// Status, empty and refused answers map to their errors before any body reaches the sink.
    @Test func answersThatAreNotABodyNeverReachTheSink() async throws {
        let server = try HTTPTestServer()
        defer { server.stop() }
        server.route("/404", .init(status: 404, body: "not here"))
        server.route("/204", .init(status: 204, body: ""))
        server.route("/empty", .init(body: ""))
        server.route("/big", .generated(10 << 20))
        for (path, expected) in [("/404", FetchError.httpStatus(404)), ("/204", .noContent), ("/empty", .noContent),
                                 ("/big", .tooLarge(limit: 1 << 20))] {
            let reached = Locked(0)
            await #expect(throws: expected, "\(path)") {
                _ = try await HTTPStream.fetch(URL(string: server.url(path))!, timeout: 60, maxBytes: 1 << 20) { d in reached.update { $0 += d.count } }
            }
            #expect(reached.value == 0, "\(path): \(reached.value) bytes reached the sink")
        }
    }
}

/// A value behind a lock, for sinks that run on the fetcher's thread.
private final class Locked<T>: @unchecked Sendable {
    // @unchecked Sendable: `v` is guarded by `lock`.
    private let lock = NSLock()
    private var v: T
    init(_ v: T) { self.v = v }
    var value: T { lock.lock(); defer { lock.unlock() }; return v }
    func update(_ f: (inout T) -> Void) { lock.lock(); f(&v); lock.unlock() }
}

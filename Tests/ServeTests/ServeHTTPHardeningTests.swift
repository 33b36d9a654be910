import Foundation
@testable import HTTPServer
import Serve
import Testing
import TestSupport

/// The HTTP server against hostile clients, over real sockets: the attacker connects from
/// 127.0.0.2 (or 127.0.x.y), the good client from 127.0.0.1 (Linux routes all of 127/8 to lo), and
/// the good client is answered while the attacker holds connections that never finish a request,
/// or sends what is malformed — which is answered 4xx/501 (or closed) within a couple of seconds.
/// One test at a time: each measures how promptly the server answers.
@Suite(.serialized) struct ServeHTTPHardeningTests {
    static let attacker = "127.0.0.2"

    /// A server with 2 s deadlines for a request's head and body (the defaults are 10 s).
    func server(_ configure: (inout HTTPServerOptions) -> Void = { _ in }) throws -> HTTPServer {
        var o = HTTPServerOptions(port: 0, threads: 2, headerTimeout: 2, bodyTimeout: 2)
        configure(&o)
        return try HTTPServer(options: o) { r in
            if r.path == "/health" { return .text("ok\n") }
            return .json(["path": r.path, "query": r.query.count, "body": String(decoding: r.body, as: UTF8.self)])
        }
    }

    /// Sends `request` on a new connection from `local` and reads the answer (at most 10 s).
    func exchange(_ port: UInt16, _ request: String, from local: String = attacker) async throws -> RawHTTPReply {
        try await offPool {
            let c = try RawHTTPConnection(port: port, from: local)
            c.send(request)
            return c.readResponse(within: 10)
        }
    }

    /// The good client: `GET /health` on a new connection from 127.0.0.1; the seconds it took,
    /// nil when it was not answered 200 within `within` seconds.
    static func health(_ port: UInt16, within: Double = 5) -> Double? {
        let start = Date()
        guard let c = try? RawHTTPConnection(port: port, from: "127.0.0.1", timeout: within) else { return nil }
        c.send("GET /health HTTP/1.1\r\nHost: good\r\nConnection: close\r\n\r\n")
        let r = c.readResponse(within: within - Date().timeIntervalSince(start))
        return r.status == 200 && r.text == "ok\n" ? Date().timeIntervalSince(start) : nil
    }

    /// The good client answered within 2 s.
    func served(_ port: UInt16) async throws -> Bool {
        try await offPool { (Self.health(port) ?? 99) < 2 }
    }

    // MARK: Deadlines

    @Test func aHeadTrickledInIsAnswered408AtTheHeaderDeadline() async throws {
        let s = try server()
        defer { s.shutdown(grace: 1) }
        let port = s.port
        async let slow: RawHTTPReply = offPool {
            let c = try RawHTTPConnection(port: port, from: Self.attacker)
            // a byte every 100 ms, 20 s' worth: the head never ends
            c.sendSlowly(Array(("GET /slow HTTP/1.1\r\nHost: t\r\nX-Pad: " + String(repeating: "a", count: 200)).utf8), interval: 0.1)
            return c.readResponse(within: 5)
        }
        #expect(try await served(port), "a good client is answered meanwhile")
        let r = try await slow
        #expect(r.status == 408, "\(r)")
        #expect(r.json?["error"] as? String == "request head not complete within 2 s")
        #expect(s.counters.timedOut >= 1)
    }

    @Test func aConnectionThatSendsNothingIsClosedAtTheHeaderDeadline() async throws {
        let s = try server()
        defer { s.shutdown(grace: 1) }
        let port = s.port
        let r: RawHTTPReply = try await offPool {
            let c = try RawHTTPConnection(port: port, from: Self.attacker)
            return c.readResponse(within: 8)
        }
        #expect(r.closed && r.bytes.isEmpty, "closed without an answer: \(r)")
        #expect(r.seconds > 1.5 && r.seconds < 4, "at the 2 s deadline: \(r)")
        #expect(try await served(port))
    }

    @Test func aBodyTrickledInIsCutAtTheBodyDeadline() async throws {
        let s = try server()
        defer { s.shutdown(grace: 1) }
        let port = s.port
        // Content-Length: libmicrohttpd reads the body; the gate shuts the connection down.
        async let counted: (Int, RawHTTPReply) = offPool {
            let c = try RawHTTPConnection(port: port, from: Self.attacker)
            c.send("POST /b HTTP/1.1\r\nHost: t\r\nContent-Length: 200\r\n\r\n")
            let sent = c.sendSlowly(Array(String(repeating: "b", count: 200).utf8), interval: 0.1)
            return (sent, c.readResponse(within: 5))
        }
        // chunked: the gate holds the connection until the body is in, and answers 408.
        async let chunked: RawHTTPReply = offPool {
            let c = try RawHTTPConnection(port: port, from: Self.attacker)
            c.send("POST /c HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\nc8\r\n")
            c.sendSlowly(Array(String(repeating: "c", count: 200).utf8), interval: 0.1)
            return c.readResponse(within: 5)
        }
        #expect(try await served(port))
        let (sent, r) = try await counted
        #expect(sent < 60 && r.closed && r.status == nil, "cut after about 2 s of a 20 s body: \(sent) bytes sent, \(r)")
        let q = try await chunked
        #expect(q.status == 408, "\(q)")
        #expect(q.json?["error"] as? String == "request body not complete within 2 s")
    }

    /// libmicrohttpd's own timeout is one of inactivity, which a byte now and then defeats; the
    /// gate's deadline for a kept-alive connection's next request is not.
    @Test func aKeptAliveConnectionsNextRequestTrickledInIsCutAtTheIdleTimeout() async throws {
        let s = try server { $0.connectionTimeout = 2 }
        defer { s.shutdown(grace: 1) }
        let port = s.port
        let (first, sent, seconds): (RawHTTPReply, Int, Double) = try await offPool {
            let c = try RawHTTPConnection(port: port, from: Self.attacker)
            c.send("GET /first HTTP/1.1\r\nHost: t\r\n\r\n")
            let first = c.readResponse(within: 5)
            let start = Date()
            let sent = c.sendSlowly(Array("GET /second HTTP/1.1\rHost: t\r\r".utf8) + Array(repeating: UInt8(ascii: "x"), count: 100), interval: 0.1)
            return (first, sent, Date().timeIntervalSince(start))
        }
        #expect(first.status == 200)
        #expect(sent < 40 && seconds > 1.5 && seconds < 4, "cut at the 2 s idle deadline: \(sent) bytes in \(seconds) s")
        #expect(try await served(port))
    }

    // MARK: Caps

    @Test func oneClientAddressHoldsAtMostItsCap() async throws {
        let s = try server()   // the default cap, 64
        defer { s.shutdown(grace: 1) }
        let port = s.port
        let swarm = RawConnectionSwarm(count: 300, port: port, from: Self.attacker)
        defer { swarm.close() }
        #expect(await eventually(10) { swarm.open == HTTPServerOptions.defaultMaxConnectionsPerClient },
                "\(swarm.open) of 300 left open; \(s.counters)")
        #expect(s.counters.refusedOverClientCap == 300 - HTTPServerOptions.defaultMaxConnectionsPerClient, "\(s.counters)")
        #expect(try await served(port), "127.0.0.1 is another client")
        let other = try await exchange(port, "GET /x HTTP/1.1\r\nHost: t\r\n\r\n", from: "127.0.0.3")
        #expect(other.status == 200, "127.0.0.3 too: \(other)")
    }

    /// The measure: 5,000 half-open connections (a head that never ends) and 4,200 idle
    /// ones from one address; /health from another within a second.
    @Test func slowlorisAndIdleFloodsFromOneAddressLeaveOthersServed() async throws {
        let limits = raiseOpenFileLimit(to: 12_000)
        let scale = min(1.0, Double(limits.after - 1_000) / 9_200)
        let halfOpen = Int(5_000 * scale), idle = Int(4_200 * scale)
        let s = try server { $0.headerTimeout = 10 }
        defer { s.shutdown(grace: 1) }
        let port = s.port
        let slow = RawConnectionSwarm(count: halfOpen, port: port, from: Self.attacker, firstBytes: Array("GET / HTTP/1.1\r\nHost: t\r\n".utf8))
        let quiet = RawConnectionSwarm(count: idle, port: port, from: Self.attacker)
        defer { slow.close(); quiet.close() }
        let times: [Double?] = try await offPool {
            (0..<20).map { _ in
                slow.send([UInt8(ascii: "X")])
                defer { usleep(100_000) }
                return Self.health(port)
            }
        }
        let answered = times.compactMap { $0 }.sorted()
        let summary = "RLIMIT_NOFILE \(limits.before) → \(limits.after); \(halfOpen) half-open + \(idle) idle from \(Self.attacker): "
            + "\(answered.count)/20 answered, p50 \(ms(answered, 0.5)), max \(ms(answered, 1)); \(s.counters)"
        #expect(answered.count == 20 && answered.last! < 2, "\(summary)")
        print("slowloris + idle flood: \(summary)")
    }

    @Test func slowConnectionsFromManyAddressesAreEvictedForNewOnes() async throws {
        let s = try server { $0.connectionLimit = 200; $0.headerTimeout = 30 }
        defer { s.shutdown(grace: 1) }
        let port = s.port
        // 8 addresses × 50 half-open connections: under each address's cap, twice the limit
        let swarms = (1...8).map { RawConnectionSwarm(count: 50, port: port, from: "127.0.1.\($0)", firstBytes: Array("GET / HTTP/1.1\r\n".utf8)) }
        defer { swarms.forEach { $0.close() } }
        #expect(await eventually(10) { s.counters.openConnections == 200 && s.counters.evicted >= 200 }, "\(s.counters)")
        for _ in 0..<5 { #expect(try await served(port), "\(s.counters)") }
    }

    // MARK: Malformed requests, answered at once

    @Test func tooManyQueryArgumentsAre414AtOnce() async throws {
        let s = try server()
        defer { s.shutdown(grace: 1) }
        let many = (0..<600).map { "a\($0)=\($0)" }.joined(separator: "&")
        let r = try await exchange(s.port, "GET /q?\(many) HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(r.status == 414 && r.seconds < 2, "\(r)")
        #expect(r.json?["error"] as? String == "more than 128 query arguments")
        let fine = (0..<128).map { "a\($0)=\($0)" }.joined(separator: "&")
        let ok = try await exchange(s.port, "GET /q?\(fine) HTTP/1.1\r\nHost: t\r\n\r\n")
        #expect(ok.status == 200 && ok.json?["query"] as? Int == 128, "\(ok)")
        // on a kept-alive connection's second request too
        let kept: (RawHTTPReply, RawHTTPReply) = try await offPool {
            let c = try RawHTTPConnection(port: s.port, from: Self.attacker)
            c.send("GET /q?x=1 HTTP/1.1\r\nHost: t\r\n\r\n")
            let first = c.readResponse(within: 5)
            c.send("GET /q?\(many) HTTP/1.1\r\nHost: t\r\n\r\n")
            return (first, c.readResponse(within: 5))
        }
        #expect(kept.0.status == 200 && kept.1.status == 414 && kept.1.seconds < 2, "\(kept)")
        #expect(try await served(s.port))
    }

    @Test func unsupportedTransferCodingsAre501OrBadFramings400AtOnce() async throws {
        let s = try server()
        defer { s.shutdown(grace: 1) }
        let cases: [(String, Int)] = [
            ("Transfer-Encoding: gzip, chunked", 501),
            ("Transfer-Encoding: x-unknown", 501),
            ("Transfer-Encoding: identity", 501),
            ("Transfer-Encoding: chunked, chunked", 400),
            ("Transfer-Encoding: chunked\r\nContent-Length: 5", 400),
            ("Content-Length: 5\r\nContent-Length: 6", 400),
            // names in any case (RFC 9110 5.1): the checks read them lower-cased
            ("tRANSFER-eNCODING: gzip", 501),
            ("TRANSFER-ENCODING: chunked\r\ncontent-LENGTH: 5", 400),
        ]
        for (headers, status) in cases {
            let r = try await exchange(s.port, "POST /te HTTP/1.1\r\nHost: t\r\n\(headers)\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
            #expect(r.status == status && r.seconds < 2 && r.headers["connection"] == "close", "\(headers): \(r)")
        }
        let twoHosts = try await exchange(s.port, "GET /te HTTP/1.1\r\nHost: t\r\nHOST: u\r\n\r\n")
        #expect(twoHosts.status == 400, "two Hosts in two cases: \(twoHosts)")
        let old = try await exchange(s.port, "POST /te HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        #expect(old.status == 400, "HTTP/1.0 with Transfer-Encoding: \(old)")
        let fine = try await exchange(s.port, "POST /te HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n")
        #expect(fine.status == 200 && fine.json?["body"] as? String == "hello", "\(fine)")
        #expect(try await served(s.port))
        #expect(s.counters.refusedRequests == cases.count + 2, "\(s.counters)")
    }

    @Test func bareCRLineEndsAndNULAre400AtOnce() async throws {
        let s = try server()
        defer { s.shutdown(grace: 1) }
        for request in ["GET /cr HTTP/1.1\rHost: t\r\r", "GET /cr HTTP/1.1\r\nHost: t\rX: y\r\n\r\n", "GET /nul HTTP/1.1\r\nHost: t\0\r\n\r\n"] {
            let r = try await exchange(s.port, request)
            #expect(r.status == 400 && r.seconds < 2, "\(request.debugDescription): \(r)")
        }
        // bare LF line ends are accepted (as libmicrohttpd does)
        let lf = try await exchange(s.port, "GET /lf HTTP/1.1\nHost: t\n\n")
        #expect(lf.status == 200, "\(lf)")
        let noHost = try await exchange(s.port, "GET /nohost HTTP/1.1\r\n\r\n")
        #expect(noHost.status == 400 && noHost.json?["error"] as? String == "HTTP/1.1 request without Host", "\(noHost)")
        #expect(try await served(s.port))
    }

    @Test func aHugeChunkExtensionIs413AtOnce() async throws {
        let s = try server()
        defer { s.shutdown(grace: 1) }
        let chunked = "POST /x HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
        let huge = "5;ext=" + String(repeating: "e", count: 100_000) + "\r\nhello\r\n0\r\n\r\n"
        let r = try await exchange(s.port, chunked + huge)
        #expect(r.status == 413 && r.seconds < 2, "\(r)")
        #expect(r.json?["error"] as? String == "chunk line over 4096 bytes")
        let bad = try await exchange(s.port, chunked + "5x\r\nhello\r\n0\r\n\r\n")
        #expect(bad.status == 400 && bad.json?["error"] as? String == "malformed chunk size line", "\(bad)")
        let over = try await exchange(s.port, chunked + "10001\r\n")
        #expect(over.status == 413, "a chunk over the body limit, before its data: \(over)")
        // A kept-alive connection's second request is libmicrohttpd's alone: it answers a chunk
        // line it cannot hold 500 (not 413), at once, and closes.
        let kept: RawHTTPReply = try await offPool {
            let c = try RawHTTPConnection(port: s.port, from: Self.attacker)
            c.send("GET /first HTTP/1.1\r\nHost: t\r\n\r\n")
            _ = c.readResponse(within: 5)
            c.send(chunked + huge)
            return c.readResponse(within: 5)
        }
        #expect(kept.status == 500 && kept.seconds < 2, "\(kept)")
        #expect(try await served(s.port))
    }

    /// The gate's reading of a first request's raw bytes, case by case (a 100-byte head limit, a
    /// 20-byte body limit, 8-byte chunk lines).
    @Test func theGateReadsFramingAsRFC9112Says() {
        var check = RawRequestCheck(maxHeaderBytes: 100, maxBodyBytes: 20)
        check.maxChunkLineBytes = 8
        let post = "POST / HTTP/1.1\r\nHost: t\r\nTransfer-Encoding: chunked\r\n\r\n"
        let cases: [(String, GateVerdict)] = [
            ("GET / HTTP/1.1\r\nHost: t\r\n\r\n", .admit),
            ("\r\n\r\nGET / HTTP/1.1\r\nHost: t\r\n\r\n", .admit),                     // empty lines before the request line
            ("GET / HTTP/1.1\nHost: t\n\n", .admit),                                       // bare LF
            ("GET / HTTP/1.1\r\nHost: t\r\n", .incomplete(headComplete: false)),
            ("GET / HTTP/1.1\r", .incomplete(headComplete: false)),                        // a CR, its LF to come
            ("GET / HTTP/1.1\rHost: t", .refuse(status: 400, reason: "bare CR in the request head (lines end with CRLF)")),
            ("GET /" + String(repeating: "a", count: 120), .refuse(status: 414, reason: "request line over 100 bytes")),
            ("GET / HTTP/1.1\r\nX: " + String(repeating: "a", count: 120), .refuse(status: 431, reason: "request head over 100 bytes")),
            (post + "5\r\nhel", .incomplete(headComplete: true)),
            (post + "5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n", .admit),                         // trailers
            (post + "5 ;a=b\nhello\n0\n\n", .admit),
            (post + "5\r\nhelloX", .refuse(status: 400, reason: "chunk data not followed by CRLF")),
            (post + "5;abcdefgh", .refuse(status: 413, reason: "chunk line over 8 bytes")),
            (post + "g\r\n", .refuse(status: 400, reason: "malformed chunk size line")),
            (post + "15\r\n", .refuse(status: 413, reason: "request body over 20 bytes")),
            ("POST / HTTP/1.1\r\nTransfer-Encoding: Chunked\r\nExpect: 100-continue\r\n\r\n", .admit),   // its body comes after 100 Continue
            ("POST / HTTP/1.1\r\nTransfer-Encoding: gzip, chunked\r\n\r\n", .admit),   // refused once parsed (501)
        ]
        for (text, want) in cases {
            let got = Array(text.utf8).withUnsafeBufferPointer { check.verdict($0) }
            #expect(got == want, "\(text.debugDescription)")
        }
        // a chunked body not complete within what the gate looks at goes on unchecked
        let long = Array((post + "1\r\na\r\n" + String(repeating: "1\r\na\r\n", count: check.peekLimit)).utf8.prefix(check.peekLimit))
        check.maxBodyBytes = 1 << 30
        #expect(long.withUnsafeBufferPointer { check.verdict($0) } == .admit)
    }

    @Test func serveTakesTheCapPerClientAddress() throws {
        let base: [(name: String, value: String)] = [(name: "--content", value: "a=a.mp4"), (name: "--ads", value: "t")]
        let defaults = try ServeConfig.make(base).httpOptions
        #expect(defaults.maxConnectionsPerClient == 64 && defaults.headerTimeout == 10 && defaults.bodyTimeout == 10)
        #expect(try ServeConfig.make(base + [(name: "--max-connections-per-client", value: "0")]).httpOptions.maxConnectionsPerClient == 0)
        #expect(try ServeConfig.make(base + [(name: "--max-connections-per-client", value: "500")]).httpOptions.maxConnectionsPerClient == 500)
        for bad in ["-1", "x", "1000001"] {
            #expect(throws: ServeConfig.ParseError.self) { try ServeConfig.make(base + [(name: "--max-connections-per-client", value: bad)]) }
        }
    }

    // MARK: Soak

    /// 1,000 half-open connections from 20 addresses (each under its cap), the closed ones
    /// reopened, a byte dripped on each every second, for 15 s, at the default deadlines: a good
    /// client's request every 100 ms is answered every time.
    @Test func aSlowlorisSoakLeavesAGoodClientServed() async throws {
        raiseOpenFileLimit(to: 4_000)
        let s = try HTTPServer(options: HTTPServerOptions(port: 0, threads: 2)) { _ in .text("ok\n") }
        defer { s.shutdown(grace: 1) }
        let port = s.port
        let swarms = (1...20).map { RawConnectionSwarm(count: 50, port: port, from: "127.0.2.\($0)", firstBytes: Array("GET / HTTP/1.1\r\nHost: t\r\n".utf8)) }
        defer { swarms.forEach { $0.close() } }
        let stop = LineBox()
        let attack = Thread {
            var n = 0
            while stop.all.isEmpty {
                usleep(100_000); n += 1
                if n % 5 == 0 { swarms.forEach { $0.reopenClosed() } }
                if n % 10 == 0 { swarms.forEach { $0.send([UInt8(ascii: "X")]) } }
            }
        }
        attack.start()
        let times: [Double?] = try await offPool {
            let end = Date().addingTimeInterval(15)
            var times: [Double?] = []
            while Date() < end {
                times.append(Self.health(port))
                usleep(100_000)
            }
            return times
        }
        stop.append("stop")
        while !attack.isFinished { try await Task.sleep(nanoseconds: 50_000_000) }   // before the defers close the swarms
        let answered = times.compactMap { $0 }.sorted()
        let held = swarms.map(\.open).reduce(0, +)
        let summary = "\(answered.count)/\(times.count) answered, p50 \(ms(answered, 0.5)), p99 \(ms(answered, 0.99)), max \(ms(answered, 1)); "
            + "\(held) half-open held at the end; \(s.counters)"
        #expect(answered.count == times.count && times.count >= 50 && answered.last! < 2, "\(summary)")
        #expect(held >= 900, "the slow connections are held (until their deadline), not refused: \(summary)")
        print("slowloris soak: \(summary)")
    }
}

/// The `q` quantile of sorted `seconds`, in milliseconds, for a message.
private func ms(_ seconds: [Double], _ q: Double) -> String {
    guard !seconds.isEmpty else { return "-" }
    return String(format: "%.1f ms", seconds[min(seconds.count - 1, Int(Double(seconds.count - 1) * q))] * 1000)
}

extension RawHTTPReply {
    /// The body as a JSON object.
    var json: [String: Any]? { (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] }
}

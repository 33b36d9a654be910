import Foundation
import HTTPServer
import Testing

/// The HTTP server over libmicrohttpd, through the curl CLI: requests reach the handler parsed,
/// limits answer 413, keep-alive reuses the connection, files go out byte for byte, and a
/// shutdown lets a request in flight finish while refusing new connections.
@Suite struct ServeHTTPServerTests {
    func echo() throws -> HTTPServer {
        try HTTPServer(options: HTTPServerOptions(port: 0, threads: 2, maxBodyBytes: 1000, maxHeaderBytes: 8192)) { r in
            if r.path == "/missing" { return .error(404, "not found") }
            return .json(["method": r.method, "path": r.path, "q": r.query.map { "\($0.name)=\($0.value)" },
                          "agent": r.headers["x-test"] ?? "", "body": String(decoding: r.body, as: UTF8.self)])
        }
    }

    @Test func aRequestReachesTheHandlerParsed() async throws {
        let s = try echo()
        defer { s.shutdown(grace: 1) }
        let r = try await curl("http://127.0.0.1:\(s.port)/a/b%20c?x=1&y=%2Fz&flag", method: "POST", body: "hello", headers: ["X-Test: yes"])
        #expect(r.status == 200)
        let j = try #require(r.json)
        #expect(j["method"] as? String == "POST")
        #expect(j["path"] as? String == "/a/b c")
        #expect(j["q"] as? [String] == ["x=1", "y=/z", "flag="])
        #expect(j["agent"] as? String == "yes")
        #expect(j["body"] as? String == "hello")
        #expect(try await curl("http://127.0.0.1:\(s.port)/missing").status == 404)
    }

    @Test func aBodyOverTheLimitIs413AndHugeHeadersAreRefused() async throws {
        let s = try echo()
        defer { s.shutdown(grace: 1) }
        #expect(try await curl("http://127.0.0.1:\(s.port)/", method: "POST", body: String(repeating: "x", count: 1000)).status == 200)
        let big = try await curl("http://127.0.0.1:\(s.port)/", method: "POST", body: String(repeating: "x", count: 1001))
        #expect(big.status == 413)
        #expect(big.json?["error"] as? String != nil)
        // Chunked: no Content-Length up front; the limit holds all the same.
        let chunked = try await curl("http://127.0.0.1:\(s.port)/", method: "POST", body: String(repeating: "y", count: 5000),
                               headers: ["Transfer-Encoding: chunked"])
        #expect(chunked.status == 413)
        let header = try await curl("http://127.0.0.1:\(s.port)/", headers: ["X-Big: " + String(repeating: "h", count: 20_000)])
        #expect(header.status == 431 || header.status == 413)
    }

    @Test func keepAliveReusesOneConnection() async throws {
        let s = try echo()
        defer { s.shutdown(grace: 1) }
        let u = "http://127.0.0.1:\(s.port)/k"
        let r = try await runOffPool("/usr/bin/curl", ["-s", "-o", "/dev/null", "-o", "/dev/null", "-o", "/dev/null", "-w", "%{http_code}:%{num_connects} ", u, u, u])
        #expect(String(decoding: r.stdout, as: UTF8.self) == "200:1 200:0 200:0 ")
    }

    @Test func aFileGoesOutByteForByte() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("serve-http-\(UUID().uuidString).bin")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let s = try HTTPServer(options: HTTPServerOptions(port: 0, threads: 2)) { r in
            r.path == "/f" ? HTTPResponse(headers: ["Content-Type": "video/mp2t"], file: file)
                           : HTTPResponse(file: URL(fileURLWithPath: "/nonexistent/file"))
        }
        defer { s.shutdown(grace: 1) }
        let r = try await curl("http://127.0.0.1:\(s.port)/f")
        #expect(r.status == 200)
        #expect(r.body == bytes)
        #expect(try await curl("http://127.0.0.1:\(s.port)/g").status == 404)
    }

    @Test func shutdownFinishesTheRequestInFlightAndRefusesNewOnes() async throws {
        let arrived = LineBox()
        let gate = DispatchSemaphore(value: 0)
        let s = try HTTPServer(options: HTTPServerOptions(port: 0, threads: 2)) { r in
            if r.path == "/slow" { arrived.append("slow"); _ = gate.wait(timeout: .now() + 30) }
            return .text("done \(r.path)")
        }
        let port = s.port
        let result = LineBox()
        Thread {
            let r = try? curlBlocking("http://127.0.0.1:\(port)/slow", method: "GET", body: nil, headers: [], timeout: 40)
            result.append("\(r?.status ?? -1) \(r?.text ?? "")")
        }.start()
        #expect(await eventually(20) { arrived.all == ["slow"] })
        #expect(s.requestsInFlight == 1)
        let stopped = LineBox()
        Thread { s.shutdown(grace: 30); stopped.append("stopped") }.start()
        // Not accepting any more, while the request in flight is still being answered.
        #expect(await eventually(30) {
            (try? curlBlocking("http://127.0.0.1:\(port)/x", method: "GET", body: nil, headers: [], timeout: 2).status) == 0
        })
        #expect(stopped.all.isEmpty, "shutdown waits for the request in flight")
        gate.signal()
        #expect(await eventually(20) { stopped.all == ["stopped"] })
        // curl's thread records the answer after the server is done sending it
        #expect(await eventually(20) { result.all == ["200 done /slow"] })
    }

    /// Waits (without a thread) until `gate` has a line, at most 30 s.
    static func opened(_ gate: LineBox) async {
        for _ in 0..<3_000 where gate.all.isEmpty { try? await Task.sleep(nanoseconds: 10_000_000) }
    }

    @Test func aRequestAnsweredLaterDoesNotHoldItsThread() async throws {
        let arrived = LineBox()
        let gate = LineBox()
        // /slow waits until the test has its answer to /fast: were it on the one pool thread,
        // /fast could not be answered before curl's 10 s timeout.
        let s = try HTTPServer(options: HTTPServerOptions(port: 0, threads: 1), answer: { r in
            guard r.path == "/slow" else { return .now(.text("done \(r.path)")) }
            return .later { arrived.append("slow"); await Self.opened(gate); return .text("done \(r.path)") }
        })
        defer { s.shutdown(grace: 5) }
        let port = s.port
        let slow = LineBox()
        Thread { slow.append((try? curlBlocking("http://127.0.0.1:\(port)/slow", method: "GET", body: nil, headers: [], timeout: 40).text) ?? "failed") }.start()
        #expect(await eventually(20) { arrived.all == ["slow"] })
        let fast = try await curl("http://127.0.0.1:\(port)/fast", timeout: 10)
        #expect(fast.status == 200 && fast.text == "done /fast")
        #expect(slow.all.isEmpty, "/slow is still waiting")
        gate.append("open")
        #expect(await eventually(20) { slow.all == ["done /slow"] })
    }

    /// libmicrohttpd aborts the process when stopped with a connection suspended (CI met it: a
    /// test's service stopped while a session request still waited for its ads).
    @Test func shutdownAnswersARequestStillAnsweredLater503() async throws {
        let arrived = LineBox()
        let gate = LineBox()
        let answered = LineBox()
        let s = try HTTPServer(options: HTTPServerOptions(port: 0, threads: 1), answer: { r in
            guard r.path == "/slow" else { return .now(.text("done \(r.path)")) }
            return .later { arrived.append("slow"); await Self.opened(gate); answered.append("late"); return .text("done \(r.path)") }
        })
        let port = s.port
        let slow = LineBox()
        Thread {
            let r = try? curlBlocking("http://127.0.0.1:\(port)/slow", method: "GET", body: nil, headers: [], timeout: 40)
            slow.append("\(r?.status ?? -1)")
        }.start()
        #expect(await eventually(20) { arrived.all == ["slow"] })
        let stopped = LineBox()
        Thread { s.shutdown(grace: 0.2); stopped.append("stopped") }.start()
        #expect(await eventually(20) { stopped.all == ["stopped"] }, "shutdown does not wait for the handler past its grace")
        #expect(await eventually(20) { slow.all == ["503"] })
        gate.append("open")   // the handler's answer, after the daemon is gone, is dropped
        #expect(await eventually(20) { answered.all == ["late"] })
    }

    @Test func aBadAddressIsAnErrorNotACrash() {
        #expect(throws: HTTPServer.StartError.self) { try HTTPServer(options: HTTPServerOptions(host: "not-an-ip", port: 0)) { _ in .text("") } }
    }
}

import Foundation
import Redis
import Testing
import TestSupport

/// The Redis client against a real redis-server on a socket of its own.
@Suite struct RedisClientTests {
    @Test func parsesURLs() throws {
        #expect(try RedisURL("redis://127.0.0.1:7000/2").address == .tcp(host: "127.0.0.1", port: 7000))
        #expect(try RedisURL("redis://127.0.0.1:7000/2").database == 2)
        #expect(try RedisURL("redis://cache").address == .tcp(host: "cache", port: 6379))
        #expect(try RedisURL("unix:///tmp/r.sock?db=3").address == .unix(path: "/tmp/r.sock"))
        for bad in ["http://x", "redis://", "redis://h:0", "redis://h:99999", "unix://relative", "redis://u@h"] {
            #expect(throws: RedisError.self) { try RedisURL(bad) }
        }
    }

    @Test(.enabled(if: RedisProcess.available, "redis-server is not installed (make setup)"))
    func commandsRepliesAndBinaryValues() throws {
        let server = try RedisProcess()
        let client = try RedisClient(server.url)
        #expect(try client.command("SET", "k", "v") == .status("OK"))
        #expect(try client.command("GET", "k").text == "v")
        #expect(try client.command("GET", "missing") == .null)
        #expect(try client.command("INCR", "n") == .integer(1))
        let bytes = Data([0, 255, 13, 10, 0])
        _ = try client.command(data: [Data("SET".utf8), Data("b".utf8), bytes])
        #expect(try client.command("GET", "b") == .string(bytes))
        if case .error(let e) = try client.command("INCR", "k") { #expect(e.contains("not an integer")) } else { Issue.record("expected an error reply") }
        let replies = try client.pipeline([["SET", "p", "1"], ["INCR", "p"], ["GET", "p"]])
        #expect(replies == [.status("OK"), .integer(2), .string(Data("2".utf8))])
        #expect(try server.redisCLI(["GET", "p"]).trimmingCharacters(in: .whitespacesAndNewlines) == "2")
    }

    @Test(.enabled(if: RedisProcess.available, "redis-server is not installed (make setup)"))
    func anOutageFailsFastAndTheClientReconnects() throws {
        let server = try RedisProcess(persistent: true)
        let client = try RedisClient(server.url, connections: 1, timeout: 0.5)
        try client.command("SET", "kept", "yes")
        server.kill()
        #expect(throws: RedisError.self) { try client.command("GET", "kept") }
        // While backing off, calls fail at once.
        let started = Date()
        for _ in 0..<100 { _ = try? client.command("GET", "kept") }
        #expect(Date().timeIntervalSince(started) < 1.0)
        #expect(!client.isAvailable)
        try server.restart()
        var value: String?
        let deadline = Date().addingTimeInterval(10)
        while value == nil, Date() < deadline { value = try? client.command("GET", "kept").text; if value == nil { usleep(50_000) } }
        #expect(value == "yes")
        #expect(client.isAvailable)
    }
}

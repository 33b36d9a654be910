import CHiredis
import Foundation

/// One hiredis connection (`redisContext`, owned here and freed in `deinit`). Not thread-safe:
/// `RedisClient` serialises its use.
final class RedisConnection {
    private var context: UnsafeMutablePointer<redisContext>?
    let url: RedisURL
    let timeout: Double

    /// Connects (and selects the database); throws `RedisError.unavailable`.
    init(url: RedisURL, timeout: Double) throws {
        self.url = url; self.timeout = timeout
        let tv = timeval(tv_sec: Int(timeout), tv_usec: Int((timeout - timeout.rounded(.down)) * 1_000_000))
        let c: UnsafeMutablePointer<redisContext>?
        switch url.address {
        case .tcp(let host, let port): c = redisConnectWithTimeout(host, Int32(port), tv)
        case .unix(let path): c = redisConnectUnixWithTimeout(path, tv)
        }
        guard let c else { throw RedisError.unavailable("cannot allocate a connection to \(url)") }
        if c.pointee.err != 0 {
            let message = RedisConnection.errorText(c)
            redisFree(c)
            throw RedisError.unavailable("\(url): \(message)")
        }
        // The same bound on every read and write: a server that stops answering fails the command.
        _ = redisSetTimeout(c, tv)
        context = c
        if url.database != 0 {
            if case .error(let e) = try command(["SELECT", String(url.database)]) { throw RedisError.unavailable("SELECT \(url.database): \(e)") }
        }
    }

    deinit { if let context { redisFree(context) } }

    /// Whether an I/O error has broken the connection (it must be replaced).
    var broken: Bool { context == nil || context!.pointee.err != 0 }

    /// Sends one command and reads its reply. A server error is `.error` (not thrown); a broken
    /// connection throws `RedisError.io`.
    func command(_ args: [String]) throws -> RedisReply {
        try command(args.map { Data($0.utf8) })
    }

    /// Sends one command with binary-safe arguments.
    func command(_ args: [Data]) throws -> RedisReply {
        guard let context, context.pointee.err == 0 else { throw RedisError.io("connection to \(url) is closed") }
        let raw = withArgv(args) { argc, argv, lengths in redisCommandArgv(context, argc, argv, lengths) }
        guard let raw else { throw RedisError.io("\(url): \(RedisConnection.errorText(context))") }
        let reply = raw.assumingMemoryBound(to: redisReply.self)
        defer { freeReplyObject(raw) }
        return RedisConnection.convert(reply)
    }

    /// Sends several commands in one write and reads their replies in order (a pipeline).
    func pipeline(_ commands: [[String]]) throws -> [RedisReply] {
        guard let context, context.pointee.err == 0 else { throw RedisError.io("connection to \(url) is closed") }
        for c in commands {
            let status = withArgv(c.map { Data($0.utf8) }) { argc, argv, lengths in redisAppendCommandArgv(context, argc, argv, lengths) }
            guard status == REDIS_OK else { throw RedisError.io("\(url): \(RedisConnection.errorText(context))") }
        }
        var replies: [RedisReply] = []
        for _ in commands {
            var raw: UnsafeMutableRawPointer?
            guard redisGetReply(context, &raw) == REDIS_OK, let raw else { throw RedisError.io("\(url): \(RedisConnection.errorText(context))") }
            replies.append(RedisConnection.convert(raw.assumingMemoryBound(to: redisReply.self)))
            freeReplyObject(raw)
        }
        return replies
    }

    private func withArgv<T>(_ args: [Data], _ body: (Int32, UnsafeMutablePointer<UnsafePointer<CChar>?>, UnsafePointer<Int>) -> T) -> T {
        // Copies each argument into one buffer that lives for the call.
        let total = args.reduce(0) { $0 + $1.count + 1 }
        let buffer = UnsafeMutablePointer<CChar>.allocate(capacity: max(1, total))
        defer { buffer.deallocate() }
        var pointers: [UnsafePointer<CChar>?] = []
        var lengths: [Int] = []
        var at = 0
        for a in args {
            a.withUnsafeBytes { raw in
                if let base = raw.baseAddress { (buffer + at).withMemoryRebound(to: UInt8.self, capacity: a.count) { $0.update(from: base.assumingMemoryBound(to: UInt8.self), count: a.count) } }
            }
            buffer[at + a.count] = 0
            pointers.append(UnsafePointer(buffer + at))
            lengths.append(a.count)
            at += a.count + 1
        }
        return pointers.withUnsafeMutableBufferPointer { p in lengths.withUnsafeBufferPointer { l in body(Int32(args.count), p.baseAddress!, l.baseAddress!) } }
    }

    private static func errorText(_ c: UnsafeMutablePointer<redisContext>) -> String {
        withUnsafeBytes(of: c.pointee.errstr) { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let end = bytes.firstIndex(of: 0) ?? bytes.count
            let s = String(decoding: bytes[..<end], as: UTF8.self)
            return s.isEmpty ? "error \(c.pointee.err)" : s
        }
    }

    private static func convert(_ r: UnsafeMutablePointer<redisReply>) -> RedisReply {
        let t = Int32(r.pointee.type)
        switch t {
        case interlude_redis_reply_string:
            return .string(r.pointee.str.map { Data(bytes: $0, count: Int(r.pointee.len)) } ?? Data())
        case interlude_redis_reply_status:
            return .status(r.pointee.str.map { String(decoding: Data(bytes: $0, count: Int(r.pointee.len)), as: UTF8.self) } ?? "")
        case interlude_redis_reply_error:
            return .error(r.pointee.str.map { String(decoding: Data(bytes: $0, count: Int(r.pointee.len)), as: UTF8.self) } ?? "error")
        case interlude_redis_reply_integer:
            return .integer(r.pointee.integer)
        case interlude_redis_reply_array:
            var items: [RedisReply] = []
            for i in 0..<Int(r.pointee.elements) { if let e = r.pointee.element[i] { items.append(convert(e)) } else { items.append(.null) } }
            return .array(items)
        default:
            return .null
        }
    }
}

import CMicroHTTPD
import Foundation

/// One request's state between libmicrohttpd's calls: the body read so far.
final class RequestState: @unchecked Sendable {
    // @unchecked Sendable: `answer` is written by the off-pool thread before it resumes the
    // connection and read by libmicrohttpd's next call for it, which comes after the resume.
    var body = Data()
    var tooLarge = false
    var offPool = false
    var answer: HTTPResponse?
    /// The request's headers, names lower-cased, the first of a repeated name (read once, when
    /// the head is in).
    var headers: [String: String] = [:]
}

/// libmicrohttpd's access handler: called once when the headers are in (`*state` nil), once per
/// piece of body, and once more with no body left, when the response is queued.
let accessCallback: MHD_AccessHandlerCallback = { cls, connection, url, method, version, uploadData, uploadSize, state in
    guard let cls, let connection, let uploadSize, let state else { return interlude_mhd_no }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    return server.access(connection, url: url, method: method, version: version, uploadData: uploadData, uploadSize: uploadSize, state: state)
}

/// libmicrohttpd's completion notice (a request answered or abandoned): frees the request's
/// state; the connection's idle deadline starts.
let completedCallback: MHD_RequestCompletedCallback = { cls, connection, state, _ in
    guard let cls else { return }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    if let connection { server.gate.requestDone(connection) }
    guard let state, let raw = state.pointee else { return }
    Unmanaged<RequestState>.fromOpaque(raw).release()
    state.pointee = nil
    server.ended()
}

/// libmicrohttpd's connection notice: a connection the gate handed over starts (its record goes
/// in its socket context) or is closed (the record is dropped, the client's count lowered).
let connectionCallback: MHD_NotifyConnectionCallback = { cls, connection, context, code in
    guard let cls, let connection, let context else { return }
    let gate = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue().gate
    if code == interlude_mhd_connection_started {
        context.pointee = gate.started(connection)
    } else {
        gate.closed(connection, context: context.pointee)
        context.pointee = nil
    }
}

/// libmicrohttpd's look at a request's target before it parses the query: a query with more
/// arguments than allowed is cut at its '?' (libmicrohttpd 0.9.75, out of per-connection memory
/// for them, queues a 431 and then stalls the connection until its timeout), and the request is
/// answered 414 when its head is in. The target is libmicrohttpd's own buffer, which it parses
/// in place next.
let targetCallback: @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) -> UnsafeMutableRawPointer? = { cls, target, connection in
    guard let cls, let target, let connection else { return nil }
    let server = Unmanaged<HTTPServer>.fromOpaque(cls).takeUnretainedValue()
    guard let question = strchr(target, Int32(UInt8(ascii: "?"))) else { return nil }
    var arguments = 1
    var p = question + 1
    while p.pointee != 0 {
        if p.pointee == CChar(UInt8(ascii: "&")) { arguments += 1 }
        p += 1
    }
    if arguments > server.options.maxQueryArguments {
        UnsafeMutablePointer(mutating: question + 1).pointee = 0
        server.gate.queryCut(connection)
    }
    return nil
}

/// A suspended connection handed to the thread that answers it.
struct SuspendedConnection: @unchecked Sendable {
    // @unchecked Sendable: libmicrohttpd allows MHD_resume_connection from any thread; the
    // pointer and the state are touched only under the server's parking lock until then.
    let connection: OpaquePointer
    let request: RequestState
    init(_ c: OpaquePointer, _ r: RequestState) { connection = c; request = r }
}

extension HTTPServer {
    /// One of libmicrohttpd's calls for a request. The C strings become `String`s only in the
    /// call that needs them: the version when the head is in, the method and URL when the
    /// request is answered.
    func access(_ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?,
                uploadData: UnsafePointer<CChar>?,
                uploadSize: UnsafeMutablePointer<Int>, state: UnsafeMutablePointer<UnsafeMutableRawPointer?>) -> MHD_Result {
        guard let raw = state.pointee else {
            state.pointee = Unmanaged.passRetained(RequestState()).toOpaque()
            began()
            let queryCut = gate.headIn(connection)
            let headers = HTTPServer.pairs(connection, interlude_mhd_header_kind, lowercasingNames: true)
            if let refusal = HTTPServer.refusal(version: version.map { String(cString: $0) } ?? "", headers: headers, queryCut: queryCut, options: options) {
                gate.countRefusal()
                return queue(connection, refusal)
            }
            let request = Unmanaged<RequestState>.fromOpaque(state.pointee!).takeUnretainedValue()
            request.headers = Dictionary(headers.lazy.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
            return interlude_mhd_yes
        }
        let request = Unmanaged<RequestState>.fromOpaque(raw).takeUnretainedValue()
        if uploadSize.pointee > 0 {
            if !request.tooLarge, let uploadData {
                if request.body.count + uploadSize.pointee > options.maxBodyBytes {
                    request.tooLarge = true
                    request.body = Data()
                } else {
                    uploadData.withMemoryRebound(to: UInt8.self, capacity: uploadSize.pointee) {
                        request.body.append($0, count: uploadSize.pointee)
                    }
                }
            }
            uploadSize.pointee = 0
            return interlude_mhd_yes
        }
        gate.requestIn(connection)
        if request.tooLarge { return queue(connection, .error(413, "request body over \(options.maxBodyBytes) bytes")) }
        if let answer = request.answer { request.answer = nil; return queue(connection, answer) }
        if request.offPool { return interlude_mhd_yes }   // resumed too early: wait for the answer
        let message = HTTPRequest(method: method.map { String(cString: $0) } ?? "GET", path: url.map { String(cString: $0) } ?? "/",
                                  query: HTTPServer.pairs(connection, interlude_mhd_argument_kind),
                                  headers: request.headers, body: request.body)
        switch answerer(message) {
        case .now(let response):
            return queue(connection, response)
        case .later(let work):
            // the connection waits, suspended; no thread does: the work runs on the concurrency pool
            request.offPool = true
            MHD_suspend_connection(connection)
            let ticket = park(SuspendedConnection(connection, request))
            Task { [self] in answer(ticket, with: await work()) }
            return interlude_mhd_yes
        }
    }

    /// Builds libmicrohttpd's response and queues it.
    private func queue(_ connection: OpaquePointer, _ response: HTTPResponse) -> MHD_Result {
        var response = response
        var made: OpaquePointer?
        switch response.body {
        case .prepared(let prepared) where response.status == prepared.status && response.headers == prepared.headers:
            // libmicrohttpd takes its own reference to the response it sends
            return withExtendedLifetime(prepared) { MHD_queue_response(connection, UInt32(prepared.status), prepared.response) }
        case .prepared(let prepared):
            made = prepared.withBody { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), interlude_mhd_must_copy)
            }
        case .data(let data):
            made = data.withUnsafeBytes { bytes in
                MHD_create_response_from_buffer(bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), interlude_mhd_must_copy)
            }
        case .file(let url):
            // no link followed at the last component, and never blocking: open(2) of a FIFO
            // without O_NONBLOCK waits for a writer, and would hold this pool thread for good
            let fd = open(url.path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK)
            var info = stat()
            if fd >= 0, fstat(fd, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG {
                made = MHD_create_response_from_fd(Int(info.st_size), fd)   // owns fd from here
                if made == nil { close(fd) }
            } else {
                if fd >= 0 { close(fd) }
                response = .error(404, "not found")
                made = Data("{\"error\":\"not found\"}".utf8).withUnsafeBytes {
                    MHD_create_response_from_buffer($0.count, UnsafeMutableRawPointer(mutating: $0.baseAddress), interlude_mhd_must_copy)
                }
                response.headers = ["Content-Type": "application/json"]
            }
        }
        guard let made else { return interlude_mhd_no }
        for (name, value) in response.headers { _ = MHD_add_response_header(made, name, value) }
        let result = MHD_queue_response(connection, UInt32(response.status), made)
        MHD_destroy_response(made)
        return result
    }

    static func value(_ connection: OpaquePointer, _ kind: MHD_ValueKind, _ name: String) -> String? {
        MHD_lookup_connection_value(connection, kind, name).map { String(cString: $0) }
    }

    /// Every (name, value) of one kind, in order; names in ASCII lower case when
    /// `lowercasingNames` (header names are ASCII tokens: RFC 9110 5.1).
    static func pairs(_ connection: OpaquePointer, _ kind: MHD_ValueKind, lowercasingNames: Bool = false) -> [(name: String, value: String)] {
        // collected on the stack (no object allocated per call): the iterator gets its address
        typealias Collected = (pairs: [(name: String, value: String)], lowercasing: Bool)
        var collected: Collected = ([], lowercasingNames)
        let iterator: MHD_KeyValueIterator = { cls, _, key, value in
            guard let cls, let key else { return interlude_mhd_yes }
            let c = cls.assumingMemoryBound(to: Collected.self)
            c.pointee.pairs.append((c.pointee.lowercasing ? asciiLowercased(key) : String(cString: key), value.map { String(cString: $0) } ?? ""))
            return interlude_mhd_yes
        }
        withUnsafeMutablePointer(to: &collected) { _ = MHD_get_connection_values(connection, kind, iterator, $0) }
        return collected.pairs
    }
}

/// The C string `s` with ASCII A–Z lowered (other bytes as they are).
func asciiLowercased(_ s: UnsafePointer<CChar>) -> String {
    let length = strlen(s)
    return s.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
        String(unsafeUninitializedCapacity: length) { out in
            for i in 0..<length { let b = bytes[i]; out[i] = b &- 65 < 26 ? b | 0x20 : b }
            return length
        }
    }
}

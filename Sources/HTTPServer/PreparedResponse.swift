import CMicroHTTPD
import Foundation

/// A response made once and answered many times (a session's kept playlist): libmicrohttpd's
/// response object is built once, its body copied into it once, and queued as it is for
/// every request answered with it (`HTTPResponse(_:)`), where a `Data` body is copied into a
/// new response object, with its headers, and freed again for each request.
///
/// libmicrohttpd allows it: a response object is reference-counted (each queued request holds
/// one reference until it is sent, under the response's own lock) and can be queued any number
/// of times; its buffer and headers are only read after it is made. This object holds one
/// reference, dropped when it goes; requests still sending keep theirs.
public final class PreparedResponse: @unchecked Sendable {
    // @unchecked Sendable: every property is immutable after init; libmicrohttpd's response is
    // only read after init (its reference count under its own mutex).

    /// Why a response could not be prepared: libmicrohttpd or the allocator had no memory.
    public struct OutOfMemory: Error {}

    /// The status code.
    public let status: Int
    /// The headers (Content-Length is set by the server).
    public let headers: [String: String]
    /// libmicrohttpd's response: one reference is this object's, released in `deinit`.
    let response: OpaquePointer
    /// The body: libmicrohttpd's buffer (allocated here, freed by libmicrohttpd with its
    /// response, which outlives this object).
    private let bytes: UnsafeRawBufferPointer

    /// A response of `status` with `headers` and `body`, made now.
    public init(status: Int = 200, headers: [String: String] = [:], body: some Collection<UInt8>) throws(OutOfMemory) {
        let count = body.count
        guard let buffer = malloc(max(1, count)) else { throw OutOfMemory() }
        let raw = UnsafeMutableRawBufferPointer(start: buffer, count: count)
        if body.withContiguousStorageIfAvailable({ raw.copyMemory(from: UnsafeRawBufferPointer($0)) }) == nil {
            raw.copyBytes(from: body)
        }
        // libmicrohttpd frees the buffer when its last reference to the response goes
        guard let made = MHD_create_response_from_buffer_with_free_callback(count, buffer, { free($0) }) else {
            free(buffer)
            throw OutOfMemory()
        }
        for (name, value) in headers { _ = MHD_add_response_header(made, name, value) }
        self.status = status
        self.headers = headers
        self.response = made
        self.bytes = UnsafeRawBufferPointer(raw)
    }

    /// A text response (`text/plain` unless `contentType` says otherwise), as `HTTPResponse.text`
    /// makes it, with `headers` besides.
    public convenience init(text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8",
                            headers: [String: String] = [:]) throws(OutOfMemory) {
        try self.init(status: status, headers: headers.merging(["Content-Type": contentType]) { _, type in type }, body: text.utf8)
    }

    deinit { MHD_destroy_response(response) }

    /// The body's bytes, copied.
    public var body: Data { Data(bytes) }

    /// Calls `body` with the body's bytes (valid only during the call).
    func withBody<T>(_ body: (UnsafeRawBufferPointer) -> T) -> T { withExtendedLifetime(self) { body(bytes) } }
}

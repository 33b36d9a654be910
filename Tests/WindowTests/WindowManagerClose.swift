import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// Asks a window to close the way a window manager does when its close button is pressed: a
/// WM_PROTOCOLS / WM_DELETE_WINDOW ClientMessage, sent through libX11 (loaded with dlopen, so the
/// tests link nothing of X). Xvfb runs no window manager and xdotool 3.2016 cannot send one.
enum WindowManagerClose {
    private typealias OpenDisplay = @convention(c) (UnsafePointer<CChar>?) -> OpaquePointer?
    private typealias InternAtom = @convention(c) (OpaquePointer?, UnsafePointer<CChar>?, Int32) -> UInt
    private typealias SendEvent = @convention(c) (OpaquePointer?, UInt, Int32, Int, UnsafeMutableRawPointer?) -> Int32
    private typealias Sync = @convention(c) (OpaquePointer?, Int32) -> Int32
    private typealias CloseDisplay = @convention(c) (OpaquePointer?) -> Int32

    /// Sends WM_DELETE_WINDOW to window `id` (decimal, as xdotool prints it) on `display`.
    /// Returns false when libX11 or the display cannot be opened.
    static func send(display: String, window id: String) -> Bool {
        guard let window = UInt(id), let lib = dlopen("libX11.so.6", RTLD_NOW) else { return false }
        defer { dlclose(lib) }
        func symbol<T>(_ name: String, as: T.Type) -> T? { dlsym(lib, name).map { unsafeBitCast($0, to: T.self) } }
        guard let open = symbol("XOpenDisplay", as: OpenDisplay.self), let intern = symbol("XInternAtom", as: InternAtom.self),
              let sendEvent = symbol("XSendEvent", as: SendEvent.self), let sync = symbol("XSync", as: Sync.self),
              let close = symbol("XCloseDisplay", as: CloseDisplay.self), let x = open(display) else { return false }
        defer { _ = close(x) }
        let protocols = intern(x, "WM_PROTOCOLS", 0), delete = intern(x, "WM_DELETE_WINDOW", 0)
        // XClientMessageEvent in an XEvent (192 bytes) on LP64: type @0, serial @8, send_event @16,
        // display @24, window @32, message_type @40, format @48, data.l[5] @56.
        let event = UnsafeMutableRawPointer.allocate(byteCount: 192, alignment: 8)
        defer { event.deallocate() }
        event.initializeMemory(as: UInt8.self, repeating: 0, count: 192)
        event.storeBytes(of: Int32(33), toByteOffset: 0, as: Int32.self)           // ClientMessage
        event.storeBytes(of: Int32(1), toByteOffset: 16, as: Int32.self)
        event.storeBytes(of: window, toByteOffset: 32, as: UInt.self)
        event.storeBytes(of: protocols, toByteOffset: 40, as: UInt.self)
        event.storeBytes(of: Int32(32), toByteOffset: 48, as: Int32.self)
        event.storeBytes(of: delete, toByteOffset: 56, as: UInt.self)               // data.l[0]
        event.storeBytes(of: UInt(0), toByteOffset: 64, as: UInt.self)              // data.l[1]: CurrentTime
        let sent = sendEvent(x, window, 0, 0, event)
        _ = sync(x, 0)
        return sent != 0
    }
}

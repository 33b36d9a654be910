/// Why a `WindowOutput` could not open, or refused a write.
public enum WindowError: Error, Equatable, Sendable, CustomStringConvertible {
    /// SDL could not start video: no X11 or Wayland display is reachable. `reason` is SDL's text.
    case noDisplay(reason: String)
    /// Another `WindowOutput` is open in this process: SDL is one per process, driven from one thread.
    case alreadyOpen
    /// An SDL call failed while opening the window: the call and SDL's text.
    case sdl(call: String, message: String)
    /// The output format cannot be shown (a non-positive size).
    case invalidFormat(String)
    /// A frame or audio block that does not match the output format.
    case unexpectedInput(String)
    /// A write after `finish()`.
    case finished

    /// One line, suitable for a CLI error message.
    public var description: String {
        switch self {
        case .noDisplay(let reason):
            return "cannot open a window: no display (set DISPLAY or run under Xvfb); SDL: \(reason)"
        case .alreadyOpen:
            return "cannot open a window: another window output is open in this process (SDL allows one)"
        case let .sdl(call, message):
            return "cannot open a window: \(call) failed: \(message)"
        case .invalidFormat(let what):
            return "cannot open a window: \(what)"
        case .unexpectedInput(let what):
            return "window output: \(what)"
        case .finished:
            return "window output: written to after finish()"
        }
    }
}

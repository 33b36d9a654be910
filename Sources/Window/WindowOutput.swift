import Foundation
import Media
import Playback
import Threads

/// A live window showing the surface's frames as they are presented, with their audio, through
/// SDL2 — the `ffplay` of the player. Frames late in real time may be left out (`isLive`).
///
/// SDL is driven from one thread the window owns (see `WindowThread`): `writeVideo` only copies
/// the picture into a one-slot mailbox (a newer frame replaces one not yet shown), and
/// `writeAudio` queues samples on the audio device; neither waits for rendering. Keys and clicks
/// come back through `onInput`. SDL is one per process, so only one window can be open at a time.
/// Every method may be called from any thread (the state they share is behind locks), so the
/// window can be used from its own `onInput` handler.
public final class WindowOutput: SurfaceOutput, Sendable {
    /// The format frames and audio arrive in; the window opens at this size.
    public let format: OutputFormat
    /// The window's title.
    public let title: String
    private let thread: WindowThread

    /// Whether an SDL window is open in this process (SDL allows one; see `WindowError.alreadyOpen`).
    private static let slot = Locked(false)

    /// Opens a window of the output size titled `title` and, when `audio` is true, an audio device
    /// at the output's rate and channel count (SDL's dummy driver when no real device opens).
    /// Throws `WindowError.noDisplay` when SDL cannot start video (no X11/Wayland display).
    public init(format: OutputFormat, title: String, audio: Bool = true) throws {
        guard format.width > 0, format.height > 0 else {
            throw WindowError.invalidFormat("a \(format.width)x\(format.height) picture")
        }
        let claimed = Self.slot.withLock { open -> Bool in
            if open { return false }
            open = true
            return true
        }
        guard claimed else { throw WindowError.alreadyOpen }
        self.format = format
        self.title = title
        thread = WindowThread(width: format.width, height: format.height, title: title,
                              audioRate: format.sampleRate, audioChannels: format.channels, wantsAudio: audio,
                              onExit: { Self.slot.withLock { $0 = false } })
        try thread.start()
    }

    deinit { thread.stop() }

    /// A live view: the player may leave out frames that are late.
    public var isLive: Bool { true }

    /// Called on the window's thread for each key press, left click and close. It may set a new
    /// handler or call `finish()`. Capture the window weakly to avoid keeping it alive.
    public var onInput: (@Sendable (WindowInput) -> Void)? {
        get { thread.input.onInput }
        set { thread.input.onInput = newValue }
    }

    /// Seconds of audio played so far (queued minus still waiting in SDL's queue), the player's
    /// master clock; nil when there is no audio device.
    public var audioClock: Double? { thread.audio.clock }

    /// The SDL audio driver playing the audio ("pulseaudio", "alsa", "dummy"...), nil without audio.
    public var audioDriver: String? { thread.audio.driver }

    /// Whether the window is fullscreen (toggled by the `f` key), as SDL reports it.
    public var isFullscreen: Bool { thread.fullscreenState.withLock { $0 } }

    /// Posts `frame` (yuv420p at the output size) to be shown; it replaces a frame that was posted
    /// and not yet shown. Copies the pixels and returns without waiting for the window.
    public func writeVideo(_ frame: Frame, index: Int64, keyframe: Bool) throws {
        guard frame.width == format.width, frame.height == format.height else {
            throw WindowError.unexpectedInput("a \(frame.width)x\(frame.height) frame for a \(format.width)x\(format.height) window")
        }
        let posted = frame.withYUV420Planes { thread.mailbox.post($0) }
        guard let posted else {
            throw WindowError.unexpectedInput("a \(frame.pixelFormatName) frame; the window takes yuv420p")
        }
        if !posted { throw WindowError.finished }
    }

    /// Queues `count` samples per channel (planar float) on the audio device; nothing without one.
    public func writeAudio(_ channels: [[Float]], count: Int) throws {
        if thread.mailbox.isStopped { throw WindowError.finished }
        try thread.audio.queue(channels, count: count)
    }

    /// Pauses (silence; the audio clock stops) or resumes the audio device.
    public func setPaused(_ paused: Bool) { thread.audio.setPaused(paused) }

    /// Drops the audio queued but not yet played (on a seek); the clock keeps what was played.
    public func clearAudio() { thread.audio.clear() }

    /// Closes the window and the audio device and quits SDL; waits for the window thread unless
    /// called on it (from `onInput`), where it ends after the handler returns. Later calls do nothing.
    public func finish() throws { thread.stop() }
}

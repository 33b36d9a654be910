import CSDL2
import Foundation
import Threads

/// The thread that owns SDL: it initialises SDL, creates the window, the renderer and the
/// streaming texture, then loops — showing the newest posted frame, polling events at least every
/// 10 ms — until stopped, and tears everything down in reverse order before SDL_Quit. No other
/// thread touches the window, renderer, texture or event queue.
final class WindowThread: @unchecked Sendable {
    // @unchecked Sendable: a C owner (SDL's window, renderer and texture): they and the render
    // state are a `LoopBound` of the window thread, which creates, uses and destroys them;
    // `startError` and `thread` are written before `started` is signalled or the thread starts and
    // read after. What the threads share lives in the lock-protected mailbox, audio queue and input relay.
    let width: Int, height: Int
    let title: String
    let audioRate: Int, audioChannels: Int, wantsAudio: Bool
    let mailbox: FrameMailbox
    let audio = AudioQueue()
    let input = InputRelay()
    /// Called on the thread once SDL has quit (the process-wide SDL slot is free again).
    private let onExit: @Sendable () -> Void

    /// What the window thread alone touches once it runs.
    private struct Rendering {
        var window: OpaquePointer?
        var renderer: OpaquePointer?
        var texture: OpaquePointer?
        var picture: [UInt8]
        var hasPicture = false
        var needsDraw = true
        var fullscreen = false
        var quitReported = false
    }
    private let windowThread = ThreadOwner(name: "the window thread")
    private let rendering: LoopBound<Rendering>
    private var window: OpaquePointer? { get { rendering.value.window } _modify { yield &rendering.value.window } }
    private var renderer: OpaquePointer? { get { rendering.value.renderer } _modify { yield &rendering.value.renderer } }
    private var texture: OpaquePointer? { get { rendering.value.texture } _modify { yield &rendering.value.texture } }
    private var picture: [UInt8] { get { rendering.value.picture } _modify { yield &rendering.value.picture } }
    private var hasPicture: Bool { get { rendering.value.hasPicture } _modify { yield &rendering.value.hasPicture } }
    private var needsDraw: Bool { get { rendering.value.needsDraw } _modify { yield &rendering.value.needsDraw } }
    private var fullscreen: Bool { get { rendering.value.fullscreen } _modify { yield &rendering.value.fullscreen } }
    private var quitReported: Bool { get { rendering.value.quitReported } _modify { yield &rendering.value.quitReported } }
    private var startError: WindowError?
    private let started = DispatchSemaphore(value: 0)
    /// Entered before the thread starts, left once SDL has quit: waiting on it returns at once
    /// afterwards, however many times.
    private let running = DispatchGroup()
    private var thread: Thread?
    /// SDL video drivers that open no visible window.
    static let invisibleDrivers: Set<String> = ["offscreen", "dummy", "evdev"]
    /// Whether SDL reports the window fullscreen, as of the last toggle (read from any thread).
    let fullscreenState = Locked(false)
    /// How long the loop waits for a frame before polling events again.
    static let pollInterval: TimeInterval = 0.008

    init(width: Int, height: Int, title: String, audioRate: Int, audioChannels: Int, wantsAudio: Bool,
         onExit: @escaping @Sendable () -> Void) {
        self.width = width
        self.height = height
        self.title = title
        self.audioRate = audioRate
        self.audioChannels = audioChannels
        self.wantsAudio = wantsAudio
        self.onExit = onExit
        mailbox = FrameMailbox(width: width, height: height)
        rendering = LoopBound(Rendering(picture: mailbox.makeBuffer()), owner: windowThread, name: "the window's SDL objects")
    }

    /// Starts the thread and waits until the window is up; throws what went wrong otherwise (the
    /// thread has then already cleaned up and exited).
    func start() throws {
        let thread = Thread { [self] in run() }
        thread.name = "interlude-window"
        self.thread = thread
        running.enter()
        thread.start()
        started.wait()
        if let startError {
            _ = mailbox.stop()
            running.wait()
            throw startError
        }
    }

    /// Whether the caller is the window thread itself (e.g. finishing from inside `onInput`).
    var isCurrent: Bool { Thread.current === thread }

    /// Asks the loop to end and, unless called from the window thread, waits until SDL has quit.
    func stop() {
        _ = mailbox.stop()
        if !isCurrent { running.wait() }
    }

    // MARK: - On the window thread

    private func run() {
        windowThread.bind()
        if let error = setUp() {
            startError = error
            tearDown()
            started.signal()
            return
        }
        started.signal()
        loop()
        tearDown()
    }

    private func sdlError() -> String { String(cString: SDL_GetError()) }

    private func setUp() -> WindowError? {
        // Leave SIGINT and SIGTERM to the host process; a closed window is reported as `.quit`.
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")
        // With no X11 or Wayland display SDL 2.26 falls back to drivers that show nothing; those
        // count as no display unless SDL_VIDEODRIVER asked for them. When a display is named but
        // refuses the connection for a moment (an X server with a full listen queue on a loaded
        // machine answers EAGAIN), SDL falls back the same way: try again for up to 2 s.
        let displayNamed = ProcessInfo.processInfo.environment["DISPLAY"].map { !$0.isEmpty } ?? false
            || ProcessInfo.processInfo.environment["WAYLAND_DISPLAY"].map { !$0.isEmpty } ?? false
        var attempt = 0
        while true {
            guard SDL_Init(SDL_INIT_VIDEO) == 0 else { return .noDisplay(reason: sdlError()) }
            let driver = SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "none"
            guard Self.invisibleDrivers.contains(driver.lowercased()), SDL_GetHint(SDL_HINT_VIDEODRIVER) == nil else { break }
            attempt += 1
            guard displayNamed, attempt < 10 else {
                return .noDisplay(reason: "only SDL's '\(driver)' video driver is available, which shows nothing")
            }
            SDL_QuitSubSystem(SDL_INIT_VIDEO)
            usleep(200_000)
        }
        let centered = Int32(interlude_sdl_windowpos_centered())
        let flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_SHOWN.rawValue
        window = SDL_CreateWindow(title, centered, centered, Int32(width), Int32(height), flags)
        guard let window else { return .sdl(call: "SDL_CreateWindow", message: sdlError()) }
        renderer = SDL_CreateRenderer(window, -1, 0)
        guard let renderer else { return .sdl(call: "SDL_CreateRenderer", message: sdlError()) }
        // Smooth scaling when the window is not at the output size (takes effect for textures
        // created after it).
        SDL_SetHint(SDL_HINT_RENDER_SCALE_QUALITY, "linear")
        texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_IYUV.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                    Int32(width), Int32(height))
        guard texture != nil else { return .sdl(call: "SDL_CreateTexture", message: sdlError()) }
        if wantsAudio { _ = audio.open(rate: audioRate, channels: audioChannels) }
        draw()
        return nil
    }

    private func tearDown() {
        audio.close()
        if let texture { SDL_DestroyTexture(texture) }
        if let renderer { SDL_DestroyRenderer(renderer) }
        if let window { SDL_DestroyWindow(window) }
        texture = nil; renderer = nil; window = nil
        SDL_Quit()
        windowThread.release()   // the window's state is nobody's now
        onExit()
        running.leave()
    }

    private func loop() {
        while true {
            pollEvents()
            if mailbox.isStopped { return }
            switch mailbox.take(into: &picture, waitingUntil: Date(timeIntervalSinceNow: Self.pollInterval)) {
            case .stop: return
            case .frame: upload(); needsDraw = true
            case .nothing: break
            }
            if needsDraw { draw() }
        }
    }

    private func upload() {
        guard let texture else { return }
        let cw = (width + 1) / 2, ch = (height + 1) / 2
        picture.withUnsafeBufferPointer { p in
            let y = p.baseAddress!, u = y + width * height, v = u + cw * ch
            _ = SDL_UpdateYUVTexture(texture, nil, y, Int32(width), u, Int32(cw), v, Int32(cw))
        }
        hasPicture = true
    }

    private func draw() {
        guard let renderer else { return }
        needsDraw = false
        SDL_SetRenderDrawColor(renderer, 0, 0, 0, 255)
        SDL_RenderClear(renderer)
        if hasPicture, let texture {
            var ow: Int32 = 0, oh: Int32 = 0
            SDL_GetRendererOutputSize(renderer, &ow, &oh)
            let fit = PictureFit(pictureWidth: width, pictureHeight: height, areaWidth: Int(ow), areaHeight: Int(oh))
            var dst = SDL_Rect(x: Int32(fit.x), y: Int32(fit.y), w: Int32(fit.width), h: Int32(fit.height))
            SDL_RenderCopy(renderer, texture, nil, &dst)
        }
        SDL_RenderPresent(renderer)
    }

    private func pollEvents() {
        var event = SDL_Event()
        // A handler that finished the window ends the delivery of the events after it.
        while !mailbox.isStopped, SDL_PollEvent(&event) != 0 {
            handle(event)
        }
    }

    private func handle(_ event: SDL_Event) {
        switch event.type {
        case SDL_QUIT.rawValue:
            reportQuit()
        case SDL_WINDOWEVENT.rawValue:
            switch UInt32(event.window.event) {
            case SDL_WINDOWEVENT_CLOSE.rawValue: reportQuit()
            case SDL_WINDOWEVENT_EXPOSED.rawValue, SDL_WINDOWEVENT_SIZE_CHANGED.rawValue,
                 SDL_WINDOWEVENT_RESIZED.rawValue, SDL_WINDOWEVENT_SHOWN.rawValue:
                needsDraw = true
            default: break
            }
        case SDL_KEYDOWN.rawValue:
            let key = event.key, sym = key.keysym.sym
            if sym == keycode(SDLK_LEFT) {
                input.deliver(.left)
            } else if sym == keycode(SDLK_RIGHT) {
                input.deliver(.right)
            } else if key.repeat == 0, sym >= 0x20, sym < 0x7f {
                // Printable keys' keycodes are their unshifted ASCII characters.
                let character = Character(Unicode.Scalar(UInt8(sym)))
                if character == "f" { toggleFullscreen() }
                input.deliver(.key(character))
            }
        case SDL_MOUSEBUTTONDOWN.rawValue:
            let button = event.button
            guard Int32(button.button) == SDL_BUTTON_LEFT, let window else { return }
            var ww: Int32 = 0, wh: Int32 = 0
            SDL_GetWindowSize(window, &ww, &wh)
            let fit = PictureFit(pictureWidth: width, pictureHeight: height, areaWidth: Int(ww), areaHeight: Int(wh))
            if let p = fit.outputPoint(x: Int(button.x), y: Int(button.y)) {
                input.deliver(.click(x: p.x, y: p.y))
            }
        default:
            break
        }
    }

    private func reportQuit() {
        // Closing the last window sends both SDL_WINDOWEVENT_CLOSE and SDL_QUIT: report it once.
        guard !quitReported else { return }
        quitReported = true
        input.deliver(.quit)
    }

    private func toggleFullscreen() {
        guard let window else { return }
        fullscreen.toggle()
        SDL_SetWindowFullscreen(window, fullscreen ? SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue : 0)
        let flags = SDL_GetWindowFlags(window)
        fullscreenState.withLock { $0 = flags & SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue == SDL_WINDOW_FULLSCREEN_DESKTOP.rawValue }
        needsDraw = true
    }
}

/// An SDL_KeyCode constant as the SDL_Keycode (Int32) that key events carry.
private func keycode(_ code: SDL_KeyCode) -> SDL_Keycode { SDL_Keycode(bitPattern: code.rawValue) }

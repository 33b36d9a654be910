import Foundation
import Testing
import TestSupport
@testable import Window

extension WindowTests {
    @Test("space, s and Right typed with xdotool arrive through onInput in order",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func keysArriveInOrder() async throws {
        let inputs = try await offPool {
            try VirtualDisplay.with { display -> [WindowInput] in
                let title = "interlude-window-test-keys"
                let window = try WindowOutput(format: Self.format, title: title, audio: false)
                defer { try? window.finish() }
                let received = Collected<WindowInput>()
                window.onInput = { received.append($0) }
                let id = try display.windowID(title: title)
                // Focus, then real (XTEST) key events on the same connection, in order.
                let r = try runTool("xdotool", ["windowfocus", id, "key", "--delay", "30", "space", "s", "Right"],
                                    display: display.name)
                guard r.status == 0 else { throw VerifierError.toolFailed(command: "xdotool key", status: r.status, stderr: r.stderr) }
                _ = eventually { received.all.count >= 3 }
                return received.all
            }
        }
        #expect(inputs == [.key(" "), .key("s"), .right])
    }

    @Test("clicks map from a resized, pillarboxed window into output pixels; clicks on the bars are not reported",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func clicksMapToOutputPixels() async throws {
        let inputs = try await offPool {
            try VirtualDisplay.with { display -> [WindowInput] in
                let title = "interlude-window-test-click"
                let window = try WindowOutput(format: Self.format, title: title, audio: false)
                defer { try? window.finish() }
                let received = Collected<WindowInput>()
                window.onInput = { received.append($0) }
                let id = try display.windowID(title: title)
                // 640x360 shows the 320x240 picture at 480x360 with 80-pixel bars left and right.
                _ = try runTool("xdotool", ["windowsize", id, "640", "360"], display: display.name)
                _ = try eventually { try display.geometry(of: id).width == 640 }
                // A click on the left bar, then one at window (280, 100): output (200*320/480, 100*240/360).
                for (x, y) in [(20, 100), (280, 100)] {
                    let r = try runTool("xdotool", ["mousemove", "--window", id, "\(x)", "\(y)", "click", "1"], display: display.name)
                    guard r.status == 0 else { throw VerifierError.toolFailed(command: "xdotool click", status: r.status, stderr: r.stderr) }
                }
                _ = eventually { !received.all.isEmpty }
                usleep(200_000)   // a click on the bar would have arrived before the second one
                return received.all
            }
        }
        #expect(inputs == [.click(x: 133, y: 66)])
    }

    @Test("f toggles fullscreen on and off and is reported each time",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func fTogglesFullscreen() async throws {
        // Xvfb runs no window manager, so the window's geometry does not change: this checks what
        // SDL reports for the window (SDL_GetWindowFlags) after each toggle.
        let (inputs, states) = try await offPool {
            try VirtualDisplay.with { display -> ([WindowInput], [Bool]) in
                let title = "interlude-window-test-fullscreen"
                let window = try WindowOutput(format: Self.format, title: title, audio: false)
                defer { try? window.finish() }
                let received = Collected<WindowInput>()
                window.onInput = { received.append($0) }
                let id = try display.windowID(title: title)
                var states = [window.isFullscreen]
                for presses in 1...2 {
                    _ = try runTool("xdotool", ["windowfocus", id, "key", "f"], display: display.name)
                    _ = eventually { received.all.count >= presses }
                    states.append(window.isFullscreen)
                }
                return (received.all, states)
            }
        }
        #expect(inputs == [.key("f"), .key("f")])
        #expect(states == [false, true, false])
    }

    @Test("finish() called from onInput (on q) closes the window without deadlock and frees SDL for the next",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func finishFromInputHandler() async throws {
        let (gone, reopened) = try await offPool {
            try VirtualDisplay.with { display -> (Bool, Bool) in
                let title = "interlude-window-test-quit-key"
                let window = try WindowOutput(format: Self.format, title: title, audio: true)
                window.onInput = { [weak window] input in
                    if input == .key("q") { try? window?.finish() }
                }
                let id = try display.windowID(title: title)
                _ = try runTool("xdotool", ["windowfocus", id, "key", "q"], display: display.name)
                let gone = try eventually {
                    try runTool("xdotool", ["search", "--name", "^\\(title)$"], display: display.name).stdout.isEmpty
                }
                // SDL has quit once the slot is free: the next window opens.
                var reopened = false
                _ = eventually {
                    guard let next = try? WindowOutput(format: Self.format, title: title + "-next", audio: false) else { return false }
                    try? next.finish()
                    reopened = true
                    return true
                }
                try window.finish()
                return (gone, reopened)
            }
        }
        #expect(gone)
        #expect(reopened)
    }

    @Test("closing the window (WM_DELETE_WINDOW, as a window manager sends it) is reported once as .quit",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func closeIsQuit() async throws {
        let (sent, inputs) = try await offPool {
            try VirtualDisplay.with { display -> (Bool, [WindowInput]) in
                let title = "interlude-window-test-close"
                let window = try WindowOutput(format: Self.format, title: title, audio: false)
                defer { try? window.finish() }
                let received = Collected<WindowInput>()
                window.onInput = { received.append($0) }
                let sent = WindowManagerClose.send(display: display.name, window: try display.windowID(title: title))
                _ = eventually { !received.all.isEmpty }
                usleep(200_000)   // a second .quit (SDL_QUIT after SDL_WINDOWEVENT_CLOSE) would have arrived
                return (sent, received.all)
            }
        }
        #expect(sent)
        #expect(inputs == [.quit])
    }
}

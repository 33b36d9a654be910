import Foundation
import Media
import Testing
import TestSupport
@testable import Window

extension WindowTests {
    struct PictureSeen: Sendable {
        var geometry: (x: Int, y: Int, width: Int, height: Int)
        var redShown: Bool
        var redSample: (r: Int, g: Int, b: Int)
        var outsideSample: (r: Int, g: Int, b: Int)
        var blueShown: Bool
        var blueSample: (r: Int, g: Int, b: Int)
    }

    @Test("a red frame, then a blue one, show in the window's pixels on the X screen",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func framesReachTheScreen() async throws {
        let seen = try await offPool {
            try VirtualDisplay.with { display -> PictureSeen in
                let title = "interlude-window-test-picture"
                let window = try WindowOutput(format: Self.format, title: title, audio: false)
                defer { try? window.finish() }
                let geometry = try display.geometry(of: try display.windowID(title: title))
                var shot: Screenshot?
                try window.writeVideo(try Self.frame(Self.red), index: 0, keyframe: true)
                let redShown = try eventually { shot = try display.screenshot(); return shot!.all(in: geometry, Self.isRed) }
                let center = (geometry.x + geometry.width / 2, geometry.y + geometry.height / 2)
                let redSample = shot!.pixel(center.0, center.1)
                // The screen corner farthest from the window is not part of it.
                let outsideSample = shot!.pixel(geometry.x > VirtualDisplay.width / 2 ? 2 : VirtualDisplay.width - 3,
                                                geometry.y > VirtualDisplay.height / 2 ? 2 : VirtualDisplay.height - 3)
                try window.writeVideo(try Self.frame(Self.blue), index: 1, keyframe: false)
                let blueShown = try eventually { shot = try display.screenshot(); return shot!.all(in: geometry, Self.isBlue) }
                return PictureSeen(geometry: geometry, redShown: redShown, redSample: redSample, outsideSample: outsideSample,
                                   blueShown: blueShown, blueSample: shot!.pixel(center.0, center.1))
            }
        }
        #expect(seen.geometry.width == Self.format.width && seen.geometry.height == Self.format.height,
                "window \(seen.geometry)")
        #expect(seen.redShown, "centre pixel \(seen.redSample)")
        #expect(!Self.isRed(seen.outsideSample), "outside the window \(seen.outsideSample)")
        #expect(seen.blueShown, "centre pixel \(seen.blueSample)")
    }

    @Test("frames of the wrong size or after finish are refused; finish twice is harmless",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func refusesMismatchedFrames() async throws {
        let errors = try await offPool {
            try VirtualDisplay.with { _ -> [String] in
                let window = try WindowOutput(format: Self.format, title: "interlude-window-test-refuse", audio: false)
                var errors: [String] = []
                let small = try Frame.solidYUV420(width: 64, height: 48, y: 16, u: 128, v: 128)
                do { try window.writeVideo(small, index: 0, keyframe: true) } catch { errors.append("\(error)") }
                try window.finish()
                try window.finish()
                do { try window.writeVideo(try Self.frame(Self.red), index: 1, keyframe: false) } catch { errors.append("\(error)") }
                do { try window.writeAudio([[0], [0]], count: 1) } catch { errors.append("\(error)") }
                return errors
            }
        }
        #expect(errors == ["window output: a 64x48 frame for a 320x240 window",
                           "window output: written to after finish()",
                           "window output: written to after finish()"])
    }

    @Test("one window per process: a second is refused until the first finishes",
          .enabled(if: XTools.available, "needs Xvfb, xdotool, xwd and ffmpeg (make setup installs them)"))
    func oneWindowAtATime() async throws {
        let (second, third) = try await offPool {
            try VirtualDisplay.with { _ -> (WindowError?, Bool) in
                let first = try WindowOutput(format: Self.format, title: "interlude-window-test-one", audio: false)
                var second: WindowError?
                do { _ = try WindowOutput(format: Self.format, title: "interlude-window-test-two", audio: false) }
                catch let e as WindowError { second = e }
                try first.finish()
                // Another window may open once the first is finished. Reopening right after SDL_Quit
                // sometimes finds only SDL's offscreen driver when other suites run X clients at the
                // same time (not understood yet; see the issue note), so the reopen is retried for a
                // few seconds: what is tested is that it becomes possible, not how fast.
                let third = eventually(within: 10) {
                    guard let w = try? WindowOutput(format: Self.format, title: "interlude-window-test-three", audio: false) else { return false }
                    try? w.finish()
                    return true
                }
                return (second, third)
            }
        }
        #expect(second == .alreadyOpen)
        #expect(third)
    }
}

import Foundation
import Media
import Playback
import Testing
import TestSupport
import Timing
@testable import Window

/// The live window against a real X server (Xvfb). Serialized: SDL is one per process and the
/// tests set the process's DISPLAY. Blocking work runs off the concurrency pool (`offPool`) and
/// hands back what it saw; the expectations are checked here.
@Suite(.serialized)
struct WindowTests {
    static let format = OutputFormat(width: 320, height: 240, frameRate: Rational(30, 1), sampleRate: 48_000, channels: 2)
    /// BT.601 limited-range YUV of pure red and pure blue.
    static let red: (UInt8, UInt8, UInt8) = (81, 90, 240)
    static let blue: (UInt8, UInt8, UInt8) = (41, 240, 110)

    static func frame(_ c: (UInt8, UInt8, UInt8)) throws -> Frame {
        try Frame.solidYUV420(width: format.width, height: format.height, y: c.0, u: c.1, v: c.2)
    }

    static func isRed(_ p: (r: Int, g: Int, b: Int)) -> Bool { p.r > 200 && p.g < 80 && p.b < 80 }
    static func isBlue(_ p: (r: Int, g: Int, b: Int)) -> Bool { p.b > 200 && p.r < 80 && p.g < 80 }
}

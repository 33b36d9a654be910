import Foundation
import Playback
let url = CommandLine.arguments[1]
let s = try PlayThrough.run(url)
print("frames \(s.frames) samples \(s.samples) \(s.seconds)s \(Double(s.frames)/s.seconds) fps")

// libFuzzer entry for the ad-media open path: compiled with Sources/Timing, Sources/Media and
// Sources/Playback by scripts/fuzz.sh and fed mutated MP4s. Each input is written to a file and
// goes through AdMediaProbe.measure — the whitelisted open, stream probing, full decode and the
// duration checks every ad from an ad server goes through. Any trap, hang or leak is a finding.
import Foundation
import Playback

nonisolated(unsafe) private var inputPath: String?

@_cdecl("LLVMFuzzerTestOneInput")
public func mediaFuzzTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    if inputPath == nil {
        setMediaLogging(verbose: false)
        inputPath = "/dev/shm/interlude-media-fuzz-\(getpid()).mp4"
    }
    let path = inputPath!
    let fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
    guard fd >= 0 else { return 0 }
    _ = write(fd, start, count)
    close(fd)
    _ = try? AdMediaProbe.measure(path, threads: 1)
    return 0
}

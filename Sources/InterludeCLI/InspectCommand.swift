// `interlude inspect`: placeholder until the ad-decisioning work lands.
import Foundation

/// Runs `interlude inspect ARGS`; returns the exit status.
func runInspect(_ args: [String]) -> Int32 {
    FileHandle.standardError.write(Data("interlude inspect: not built yet\n".utf8))
    return 1
}

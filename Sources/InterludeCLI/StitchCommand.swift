// `interlude stitch`: placeholder until the engine lands.
import Foundation

/// Runs `interlude stitch ARGS`; returns the exit status.
func runStitch(_ args: [String]) -> Int32 {
    FileHandle.standardError.write(Data("interlude stitch: not built yet\n".utf8))
    return 1
}

// The `interlude` command: parses arguments, calls the library, prints. No logic lives here.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let usage = """
    usage: interlude <command> [options]

    commands:
      stitch    splice ad media into content and write a stitched MP4, an HLS package or a frame stream
      play      play content with its ads through the player, live (real time) or as fast as possible
      inspect   resolve a VAST/VMAP ad tag and print its ad schedule
      serve     server-side ad insertion for HLS: per-viewer sessions over shared cuts and ads
      worker    run the ad transcode jobs serve nodes queue on Redis (--redis), into their store

    Run `interlude <command> --help` for a command's options.
    """

guard let command = arguments.first else {
    FileHandle.standardError.write(Data((usage + "\n").utf8))
    exit(2)
}
let rest = Array(arguments.dropFirst())
switch command {
case "stitch": exit(await runStitch(rest))
case "inspect": exit(await runInspect(rest))
case "play": exit(await runPlay(rest))
case "serve": exit(await runServe(rest))
case "worker": exit(await runWorker(rest))
case "-h", "--help", "help": print(usage); exit(0)
case "--version": print("interlude 0.1.0"); exit(0)
default:
    FileHandle.standardError.write(Data("interlude: unknown command '\(command)'\n\(usage)\n".utf8))
    exit(2)
}

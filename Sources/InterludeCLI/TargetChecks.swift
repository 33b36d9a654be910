// Checks of `stitch`'s inputs, output and report targets before any work is done.
import Foundation
import Interlude
import Playback

extension StitchOptions {
    /// Every file the stitch reads and writes (`CommandFiles`): content, ad media or tags of
    /// `--ad-break`, the `--ads` tag, `--native-format` files, `--native-break` responses, the
    /// `--ad-ui` layout; `-o` (a folder for HLS), `--report`, `--companions DIR`.
    var files: CommandFiles {
        var f = CommandFiles()
        f.input("content", request.content)
        for ad in request.breaks.flatMap(\.ads) { f.input("--ad-break", ad) }
        f.input("--ads", adTag)
        for path in nativeFormats { f.input("--native-format", path) }
        for b in nativeBreaks { f.input("--native-break", b.response) }
        f.input("--ad-ui", adUIPath)
        if request.container == .hls {
            f.folders.append(("-o", request.output, true, ""))
        } else {
            f.output("-o", request.output)
        }
        f.output("--report", reportPath)
        if let dir = companionsDir, dir != "lbar" { f.folders.append(("--companions", dir, false, "companion-")) }
        return f
    }

    /// Why the stitch cannot start (one line) and its exit status, or nil: an output that is an
    /// input or another output is a usage error (2); an input that is a FIFO, device or folder, or
    /// an output target that cannot be written (`OutputTarget.validate`; `-y` governs `-o` and the
    /// report alike) fails the stitch (1).
    func targetProblem() -> (message: String, status: Int32)? {
        let files = self.files
        if let conflict = files.conflict() { return (conflict, 2) }
        if let problem = files.unreadableInput() { return (problem, 1) }
        if let dir = cacheDir, let problem = AdMediaCache.folderProblem(dir) { return ("--cache-dir: \(problem)", 1) }
        let output = request.output
        do {
            if request.container == .hls {
                try OutputTarget.validateFolder(output, overwrite: request.overwrite, role: "output")
            } else if output != "-" {
                try OutputTarget.validate(output, overwrite: request.overwrite, role: "output")
            }
            if let report = reportPath { try OutputTarget.validate(report, overwrite: request.overwrite, role: "report") }
        } catch {
            return ("\(error)", 1)
        }
        return nil
    }
}

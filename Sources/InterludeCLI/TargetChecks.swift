// Checks of `stitch`'s output and report targets before any work is done.
import Foundation
import Playback

extension StitchOptions {
    /// Every input the stitch reads: content, ad media or tags of `--ad-break`, the `--ads` tag.
    var inputPaths: [String] {
        var paths = [request.content]
        paths += request.breaks.flatMap(\.ads)
        if let adTag { paths.append(adTag) }
        return paths.map { $0.hasPrefix("file://") ? (URL(string: $0)?.path ?? $0) : $0 }.filter { !$0.contains("://") }
    }

    /// Why an input, the output or the report target cannot be used (one line), or nil: local
    /// inputs must be regular files; `-o` and `--report` must differ from each other and from every
    /// input, and each must be a writable regular-file target (`OutputTarget.validate`; `-y`
    /// governs both).
    func targetProblem() -> String? {
        // A FIFO or device as an input would block or never end; a directory cannot be read.
        for input in inputPaths {
            var st = stat()
            guard stat(input, &st) == 0 else { continue }   // missing inputs are reported where they are read
            let kind = st.st_mode & S_IFMT
            if kind == S_IFIFO { return "input \(input) is a FIFO; refused (inputs must be regular files or URLs)" }
            if kind == S_IFCHR || kind == S_IFBLK { return "input \(input) is a device; refused (inputs must be regular files or URLs)" }
            if kind == S_IFDIR { return "input \(input) is a directory" }
        }
        let output = request.output
        if output != "-" {
            if let input = inputPaths.first(where: { OutputTarget.sameFile($0, output) }) { return "output \(output) is the input \(input); refused" }
        }
        if let report = reportPath {
            if output != "-", OutputTarget.sameFile(report, output) { return "--report \(report) is the output; refused" }
            if let input = inputPaths.first(where: { OutputTarget.sameFile($0, report) }) { return "--report \(report) is the input \(input); refused" }
        }
        do {
            if output != "-" { try OutputTarget.validate(output, overwrite: request.overwrite, role: "output") }
            if let report = reportPath { try OutputTarget.validate(report, overwrite: request.overwrite, role: "report") }
        } catch {
            return "\(error)"
        }
        return nil
    }
}

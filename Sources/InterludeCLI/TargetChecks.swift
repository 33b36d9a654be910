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

    /// Why the output or report target cannot be used (one line), or nil: `-o` and `--report` must
    /// differ from each other and from every input, and each must be a writable regular-file
    /// target (`OutputTarget.validate`; `-y` governs both).
    func targetProblem() -> String? {
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

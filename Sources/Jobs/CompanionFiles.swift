// `--companions DIR` of a stitch job: the companion shown in each slot, one image file each.
import Files
import Foundation
import Interlude
import Playback

enum CompanionFiles {
    /// The file name for companion `index` of `c`: `companion-<WxH>-<n>-<ad id>.<ext>`, the ad id
    /// (from an ad server) reduced to letters, digits, `-` and `_`, at most 40 of them.
    static func name(_ c: FilledCompanion, index: Int) -> String {
        let id = String(c.adId.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
            .map(Character.init).prefix(40))
        return "companion-\(c.slot)-\(index + 1)-\(id.isEmpty ? "ad" : id).\(c.fileExtension)"
    }

    /// Staged companion files: temporary files beside their targets in the folder, committed
    /// together with the output and the report (`StitchJob`), so that a stitch whose output or
    /// report cannot be written leaves no companion either.
    struct Staged {
        /// (temporary, target) pairs for `OutputTarget.commit`, in companion order.
        var items: [(temporary: String, target: String)] = []
        /// The folder, when this stitch created it (removed again when nothing is committed).
        var createdFolder: String?

        /// The targets, in companion order.
        var paths: [String] { items.map(\.target) }

        /// Removes what was staged (nothing was committed).
        func discard() {
            for item in items { TemporaryFiles.discard(item.temporary) }
            removeCreatedFolder()
        }

        /// Removes the folder this stitch created, when it is empty (nothing was committed into it).
        func removeCreatedFolder() {
            if let createdFolder { rmdir(createdFolder) }
        }
    }

    /// Stages every companion for `dir` (created when missing). Throws one line, leaving nothing.
    static func stage(_ companions: [FilledCompanion], into dir: String) throws(JobFailure) -> Staged {
        var staged = Staged()
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) {
            guard isDir.boolValue else { throw JobFailure.failed("--companions \(dir) is not a folder") }
        } else {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw JobFailure.failed("cannot create companions folder \(dir)")
            }
            staged.createdFolder = dir
        }
        for (i, c) in companions.enumerated() {
            let path = (dir as NSString).appendingPathComponent(name(c, index: i))
            do {
                staged.items.append((try OutputTarget.stage(c.data, for: path), path))
            } catch {
                staged.discard()
                throw JobFailure.failed("cannot write companion \(path): \(error)")
            }
        }
        return staged
    }
}

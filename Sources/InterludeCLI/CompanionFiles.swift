// `--companions DIR`: the companion shown in each slot, one image file each.
import Foundation
import Interlude

enum CompanionFiles {
    /// The file name for companion `index` of `c`: `companion-<WxH>-<n>-<ad id>.<ext>`, the ad id
    /// (from an ad server) reduced to letters, digits, `-` and `_`, at most 40 of them.
    static func name(_ c: FilledCompanion, index: Int) -> String {
        let id = String(c.adId.unicodeScalars.filter { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || $0 == "-" || $0 == "_") }
            .map(Character.init).prefix(40))
        return "companion-\(c.slot)-\(index + 1)-\(id.isEmpty ? "ad" : id).\(c.fileExtension)"
    }

    /// Writes every companion into `dir` (created when missing); their paths. Existing files are
    /// replaced only with `overwrite`; on failure what was written is removed and it throws one line.
    static func write(_ companions: [FilledCompanion], into dir: String, overwrite: Bool) throws -> [String] {
        var isDir: ObjCBool = false
        if FileManager.default.fileExists(atPath: dir, isDirectory: &isDir) {
            guard isDir.boolValue else { throw UsageError("--companions \(dir) is not a folder") }
        } else {
            do { try FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true) } catch {
                throw UsageError("cannot create companions folder \(dir)")
            }
        }
        var written: [String] = []
        for (i, c) in companions.enumerated() {
            let path = (dir as NSString).appendingPathComponent(name(c, index: i))
            do {
                try c.data.write(to: URL(fileURLWithPath: path), options: overwrite ? [.atomic] : [.withoutOverwriting])
                written.append(path)
            } catch {
                for p in written { try? FileManager.default.removeItem(atPath: p) }
                throw UsageError("cannot write companion \(path)\(overwrite ? "" : " (exists? use -y)")")
            }
        }
        return written
    }
}

import Foundation
import Media
import Timing

extension MediaStore {
    /// Slate segments filling `duration` exactly in `rendition` at its frame rate: whole pieces
    /// (`Rendition.slatePiece`) and one remainder, each made once per (slate, rung, piece) and
    /// shared. The segments form one MPEG-TS stream: put `EXT-X-DISCONTINUITY` before the first
    /// and after the last, none between.
    public func slate(rendition rung: Rendition, duration: MediaTime) async throws -> [StoredSegment] {
        let rate = rung.slateFrameRate, piece = rung.slatePiece
        guard duration > .zero else { return [] }
        let whole = duration.count(of: piece)
        let rest = (duration - piece * whole).reduced
        guard whole <= 3600 else { throw StoreError.unsupported("a slate of \(duration.seconds) s: breaks are at most an hour") }
        let key = try slateKey()
        let prefix = "slate/\(key)/\(rung.key)"
        var out: [StoredSegment] = []
        for i in 0..<whole {
            out.append(try await slatePiece(rung, rate: rate, prefix: prefix, name: "sec\(i).ts", start: piece * i, length: piece,
                                            previous: i > 0 ? "\(prefix)/sec\(i - 1).ts" : nil))
        }
        if rest > .zero {
            out.append(try await slatePiece(rung, rate: rate, prefix: prefix, name: "rem\(whole)-\(rest.value)_\(rest.timescale).ts", start: piece * whole,
                                            length: rest, previous: whole > 0 ? "\(prefix)/sec\(whole - 1).ts" : nil))
        }
        return out
    }

    /// "black", or the version of the slate picture's making and the first 16 hex digits of the
    /// slate file's SHA-256: pieces made before the picture went through the engine's conform
    /// (rotation and mirroring applied: version 2) are not found again, and are made anew.
    private func slateKey() throws -> String {
        guard let file = options.slateFile else { return "black" }
        return "v\(SlateMaker.pictureVersion)-" + String(try ContentHash.sha256(fileAt: file).prefix(16))
    }

    private func slatePiece(_ rung: Rendition, rate: Rational, prefix: String, name: String, start: MediaTime, length: MediaTime,
                            previous: String?) async throws -> StoredSegment {
        let path = "\(prefix)/\(name)"
        let root = self.root, file = options.slateFile
        return try await pieceMadeOnce(path, kind: "slate", duration: length) { output in
            // the piece before is read only as a regular file inside the store (never through a link)
            if let previous { guard StoreFile.regular(previous, in: root) != nil else { throw StoreError.unsupported("slate: \(previous) is not a stored piece") } }
            let folder = self.temporaryURL()
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            defer { try? FileManager.default.removeItem(at: folder) }
            let picture = try SlateMaker.picture(file: file, rendition: rung)
            try SlateMaker.piece(picture: picture, rendition: rung, frameRate: rate, start: start, length: length,
                                 previous: previous.map { root.appendingPathComponent($0) }, folder: folder, output: output)
        }
    }
}

import Foundation
import Media
import Timing

/// An HLS origin whose variants carry no sound of their own but name an alternate audio
/// rendition (`EXT-X-MEDIA TYPE=AUDIO` with a URI): the rendition's track fetched once (its
/// MPEG-TS segments one after another, or its CMAF initialization segment and fragments), and
/// each video segment remuxed to MPEG-TS with the audio packets of its time — from its first
/// picture to the next segment's (the first from the track's start, the last to its end) — so
/// the store holds variants with their sound, as it does for a muxed origin. One language is
/// carried into the store (the group's default); serving every language is issue 34's item 5.
extension HLSImport {
    /// The audio rendition at `location` fetched whole into one file under `folder`.
    static func audioTrack(_ location: HLSLocation, folder: URL, index: Int, timeout: Double, total: inout Int64,
                           maxTotalBytes: Int64) async throws -> URL {
        let media = try HLSPlaylistText.media(try await text(location, scratch: folder, timeout: timeout))
        let maps = Set(media.maps.compactMap { $0 })
        guard maps.count <= 1, media.maps.allSatisfy({ ($0 == nil) == maps.isEmpty }) else {
            throw StoreError.unsupported("HLS source: an audio rendition with more than one initialization segment")
        }
        let file = folder.appendingPathComponent(".audio\(index)" + (maps.isEmpty ? ".ts" : ".mp4"))
        let part = folder.appendingPathComponent(".audio\(index).part")
        defer { try? FileManager.default.removeItem(at: part) }
        FileManager.default.createFile(atPath: file.path, contents: nil)
        let out = try FileHandle(forWritingTo: file)
        defer { try? out.close() }
        for (uri, limit) in (maps.first.map { [($0, maxInitBytes)] } ?? []) + media.segments.map({ ($0, maxSegmentBytes) }) {
            try await fetch(try location.resolve(uri), to: part, maxBytes: limit, timeout: timeout)
            let data = try Data(contentsOf: part)
            total += Int64(data.count)
            guard total <= maxTotalBytes else { throw StoreError.unsupported("HLS source: more than \(maxTotalBytes) bytes of segments") }
            try out.write(contentsOf: data)
        }
        return file
    }

    /// Fetches `media`'s video segments (at `location`) and writes each, with `audio`'s packets of
    /// its time, as `dir/segNNNNN.ts`, continuity counters following one another.
    static func remuxWithAudio(_ media: HLSPlaylistText.Media, at location: HLSLocation, audio: URL, into dir: URL, timeout: Double,
                               total: inout Int64, maxTotalBytes: Int64) async throws {
        var inits: [String: URL] = [:]
        var sources: [(file: URL, initialization: URL?)] = []
        defer {
            for f in inits.values { try? FileManager.default.removeItem(at: f) }
            for s in sources { try? FileManager.default.removeItem(at: s.file) }
        }
        for (i, uri) in media.segments.enumerated() {
            var initialization: URL?
            if let map = media.maps[i] {
                if let known = inits[map] { initialization = known } else {
                    let f = dir.appendingPathComponent(".init\(inits.count).mp4")
                    try await fetch(try location.resolve(map), to: f, maxBytes: maxInitBytes, timeout: timeout)
                    inits[map] = f
                    initialization = f
                }
            }
            let raw = dir.appendingPathComponent(String(format: ".source%05d", i))
            sources.append((raw, initialization))
            try await fetch(try location.resolve(uri), to: raw, maxBytes: maxSegmentBytes, timeout: timeout)
            total += Int64((try? FileManager.default.attributesOfItem(atPath: raw.path)[.size] as? NSNumber)?.intValue ?? 0)
            guard total <= maxTotalBytes else { throw StoreError.unsupported("HLS source: more than \(maxTotalBytes) bytes of segments") }
        }
        // where each segment's pictures start: its audio runs to the next one's
        var starts: [MediaTime] = []
        for (i, s) in sources.enumerated() {
            guard let t = try? FragmentRemux.firstPicture(initialization: s.initialization, segment: s.file) else {
                throw StoreError.unsupported("HLS source: segment \(media.segments[i].prefix(200)) holds no picture")
            }
            starts.append(t)
        }
        var counters: [Int: UInt8] = [:]
        for (i, s) in sources.enumerated() {
            let file = dir.appendingPathComponent(String(format: "seg%05d.ts", i))
            let span = FragmentRemux.AudioSpan(file: audio, from: i == 0 ? nil : starts[i], to: i + 1 < starts.count ? starts[i + 1] : nil)
            do {
                try FragmentRemux.mpegTS(initialization: s.initialization, segment: s.file, to: file,
                                         shift: s.initialization == nil ? .zero : cmafClockShift, audio: span)
            } catch {
                throw StoreError.unsupported("HLS source: segment \(media.segments[i].prefix(200)): \(error)")
            }
            var bytes = [UInt8](try Data(contentsOf: file))
            TSContinuity.continuing(&bytes, after: counters)
            counters = TSContinuity.lastCounters(bytes)
            try Data(bytes).write(to: file)
        }
    }
}

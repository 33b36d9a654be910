import Foundation

/// Checks of an HLS package as strict clients and splicers read it: the transport stream's
/// continuity counters against the playlist's discontinuities, SCTE-35 splice times against the
/// segments' frames, and whole-package playback in the field-check clients. Each returns the
/// problems found (empty: none).
public enum HLSPackageCheck {
    /// A media segment of a playlist with the tags before it.
    public struct Entry: Sendable {
        /// Its file.
        public var url: URL
        /// The tags between the previous segment and this one.
        public var tags: [String]
        /// Whether `EXT-X-DISCONTINUITY` precedes it.
        public var discontinuity: Bool { tags.contains("#EXT-X-DISCONTINUITY") }
    }

    /// The playlist's segments, and the tags after the last one.
    public static func entries(_ playlist: URL) throws -> (entries: [Entry], trailer: [String]) {
        let text = try String(contentsOf: playlist, encoding: .utf8)
        var entries: [Entry] = [], pending: [String] = []
        for line in text.split(separator: "\n").map(String.init) where !line.isEmpty {
            if line.hasPrefix("#") { pending.append(line); continue }
            entries.append(Entry(url: playlist.deletingLastPathComponent().appendingPathComponent(line), tags: pending))
            pending = []
        }
        return (entries, pending)
    }

    /// Every PID's continuity counter goes on from segment to segment (the playlist is one
    /// stream to a client), except at a segment after `EXT-X-DISCONTINUITY`, where the first
    /// packet of every PID must carry the discontinuity indicator; and no packet elsewhere does.
    public static func continuityProblems(_ playlist: URL) throws -> [String] {
        var problems: [String] = []
        var last: [Int: Int] = [:]   // PID: the counter of its last packet
        for entry in try entries(playlist).entries {
            guard let packets = TSPacketHeader.parse(try Data(contentsOf: entry.url)) else {
                problems.append("\(entry.url.lastPathComponent): not whole 188-byte TS packets"); continue
            }
            var seen = Set<Int>()
            for p in packets {
                let first = seen.insert(p.pid).inserted
                let name = "\(entry.url.lastPathComponent) PID \(p.pid) at \(p.offset)"
                if entry.discontinuity && first {
                    if !p.discontinuity { problems.append("\(name): no discontinuity indicator after EXT-X-DISCONTINUITY") }
                } else if p.discontinuity {
                    problems.append("\(name): discontinuity indicator where the playlist has none")
                } else if let previous = last[p.pid] {
                    let expected = p.hasPayload ? (previous + 1) & 0x0F : previous
                    if p.continuityCounter != expected { problems.append("\(name): counter \(p.continuityCounter), expected \(expected)") }
                }
                last[p.pid] = p.continuityCounter
            }
        }
        return problems
    }

    /// Each `SCTE35-OUT` / `SCTE35-IN` of the playlist, decoded by threefive: `pts_time +
    /// pts_adjustment` must be the PTS of the first video frame of the segment it precedes (the
    /// splice frame). Returns the number of splices checked (an IN after the last segment has
    /// no frame) and the problems.
    public static func scte35Problems(_ playlist: URL) throws -> (checked: Int, problems: [String]) {
        var checked = 0, problems: [String] = []
        for entry in try entries(playlist).entries {
            for tag in entry.tags where tag.hasPrefix("#EXT-X-DATERANGE:") {
                guard let r = tag.range(of: #"SCTE35-(OUT|IN)=0x[0-9A-Fa-f]+"#, options: .regularExpression) else { continue }
                let attribute = tag[r]
                let hex = String(attribute[attribute.range(of: "=")!.upperBound...])
                let cue = try SCTE35Reading.decode(hex)
                let frame = try firstVideoFramePTS(entry.url)
                checked += 1
                if attribute.hasPrefix("SCTE35-OUT") != cue.outOfNetwork {
                    problems.append("\(entry.url.lastPathComponent): \(attribute.prefix(10)) with out_of_network \(cue.outOfNetwork)")
                }
                if cue.splicePTS != frame {
                    problems.append("\(entry.url.lastPathComponent): splice PTS \(cue.splicePTS) (pts_time \(cue.ptsTime) + pts_adjustment \(cue.ptsAdjustment)) but the frame's PTS is \(frame)")
                }
            }
        }
        return (checked, problems)
    }

    /// The sound at every segment boundary of a playlist read as one timeline (the stream clock):
    /// the next segment's first audio packet may not start after the previous segment's sound
    /// ends (a gap, which a player counting decoded samples drifts by: Chromium's "Large
    /// timestamp gap detected"), nor a whole AAC frame or more before it (sound running back).
    /// An overlap under one frame is what MPEG-TS leaves where two encodes meet (players that
    /// place sound by timestamp trim it). Returns the problems and the boundaries checked.
    public static func audioJoinProblems(_ playlist: URL) throws -> (checked: Int, problems: [String]) {
        var problems: [String] = [], checked = 0
        var previous: (name: String, end: Int64, frame: Int64)?
        for entry in try entries(playlist).entries {
            let out = try Tools.ffprobe(["-v", "error", "-select_streams", "a:0", "-show_entries", "packet=pts,duration",
                                         "-of", "csv=p=0", entry.url.path])
            let packets = String(decoding: out.stdout, as: UTF8.self).split(separator: "\n").compactMap { line -> (Int64, Int64)? in
                let f = line.split(separator: ",", omittingEmptySubsequences: false)
                guard f.count >= 2, let pts = Int64(f[0]), let d = Int64(f[1]) else { return nil }
                return (pts, d)
            }
            guard let first = packets.first, let last = packets.last else { continue }
            let name = entry.url.lastPathComponent
            if let p = previous {
                checked += 1
                let gap = first.0 - p.end
                if gap > 1 { problems.append("\(name): its sound starts \(Double(gap) / 90) ms after \(p.name)'s ends") }
                if -gap >= p.frame { problems.append("\(name): its sound starts \(Double(-gap) / 90) ms before \(p.name)'s ends") }
            }
            previous = (name, last.0 + last.1, last.1)
        }
        return (checked, problems)
    }

    /// The 90 kHz PTS of the first video frame `ffprobe` decodes from the segment `ts`.
    public static func firstVideoFramePTS(_ ts: URL) throws -> Int64 {
        let out = try Tools.ffprobe(["-v", "error", "-select_streams", "v:0", "-show_entries", "frame=pts",
                                     "-read_intervals", "%+#1", "-of", "csv=p=0", ts.path])
        let text = String(decoding: out.stdout, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        let first = text.split(separator: "\n").first?.split(separator: ",", omittingEmptySubsequences: false).first
        guard let pts = Int64(first ?? "") else {
            throw VerifierError.malformedOutput("no video frame pts in \(ts.path): \(text)")
        }
        return pts
    }

    /// The package played by `ffmpeg -xerror` and by GStreamer's playbin: their complaints.
    public static func clientProblems(_ playlist: URL) throws -> [String] {
        try [FieldCheck.Client.ffmpeg, .gstreamer].compactMap { client in
            let verdict = try FieldCheck.check(playlist, with: client)
            return verdict.clean ? nil : verdict.report
        }
    }
}

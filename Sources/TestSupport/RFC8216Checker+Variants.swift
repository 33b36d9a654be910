extension RFC8216 {
    /// §6.2.4's rules between the media playlists of one presentation (its variants' and
    /// alternative renditions' playlists, fetched at about the same time), besides checking each
    /// alone as `check(media:)` does:
    /// - the same EXT-X-TARGETDURATION (I-frame VOD playlists excepted; leave subtitle playlists
    ///   out, which the text cannot tell apart and which may differ too);
    /// - the same EXT-X-PLAYLIST-TYPE when any has one;
    /// - a date range (an ID) present in several carries the same attributes in each;
    /// - once all are complete (EXT-X-ENDLIST), the same set of date ranges, and the same
    ///   discontinuity sequence numbers at their first and last segments.
    public static func check(variants texts: [String], allowing allowances: [Allowance] = []) -> [Violation] {
        var f = RFC8216Findings()
        let playlists = texts.map { RFC8216MediaPlaylist.read($0, into: &f) }
        RFC8216Variants.check(playlists, into: &f)
        return f.finish(allowing: allowances)
    }
}

/// The comparisons of `RFC8216.check(variants:)`.
enum RFC8216Variants {
    static func check(_ playlists: [RFC8216MediaPlaylist], into f: inout RFC8216Findings) {
        guard let first = playlists.first else { return }
        func name(_ i: Int) -> String { "playlist \(i + 1)" }
        let timed = playlists.enumerated().filter { !($0.element.iFramesOnly && $0.element.playlistType == "VOD") }
        if let reference = timed.first {
            for (i, p) in timed.dropFirst() where p.targetDuration != reference.element.targetDuration {
                f.add(.variantTargetDuration, p.targetDurationLine ?? p.lines.first,
                      "\(name(i)) has EXT-X-TARGETDURATION \(p.targetDuration.map { "\($0)" } ?? "none"), \(name(reference.offset)) \(reference.element.targetDuration.map { "\($0)" } ?? "none")")
            }
        }
        if playlists.contains(where: { $0.playlistType != nil }) {
            for (i, p) in playlists.enumerated() where p.playlistType != first.playlistType {
                f.add(.variantPlaylistType, p.lines.first { $0.tagName == "EXT-X-PLAYLIST-TYPE" } ?? p.lines.first,
                      "\(name(i)) has EXT-X-PLAYLIST-TYPE \(p.playlistType ?? "none"), playlist 1 \(first.playlistType ?? "none")")
            }
        }
        // ID → attribute → (value, the playlist and line it was first seen in)
        var seen: [String: [String: (raw: String, playlist: Int, line: Int)]] = [:]
        for (i, p) in playlists.enumerated() {
            for r in p.dateRanges {
                for a in r.attributes.attributes {
                    if let earlier = seen[r.id]?[a.name] {
                        if earlier.raw != a.raw && earlier.playlist != i {
                            f.add(.variantDateRanges, r.line, "ID \"\(r.id)\": \(a.name)=\(a.raw.prefix(40)) in \(name(i)), \(earlier.raw.prefix(40)) in \(name(earlier.playlist)) (line \(earlier.line))")
                        }
                    } else {
                        seen[r.id, default: [:]][a.name] = (a.raw, i, r.line.number)
                    }
                }
            }
        }
        guard playlists.allSatisfy(\.hasEndList) else { return }
        let ids = playlists.map { Set($0.dateRanges.map(\.id)) }
        for (i, set) in ids.enumerated().dropFirst() where set != ids[0] {
            f.add(.variantDateRanges, playlists[i].lines.first,
                  "\(name(i)) has date ranges \(set.sorted()), playlist 1 \(ids[0].sorted()) (every variant MUST have the same set)")
        }
        let ends = playlists.map { p in (p.segments.first?.discontinuityNumber, p.segments.last?.discontinuityNumber) }
        for (i, e) in ends.enumerated().dropFirst() where e.0 != ends[0].0 || e.1 != ends[0].1 {
            f.add(.variantDiscontinuities, playlists[i].segments.last?.uri ?? playlists[i].lines.first,
                  "\(name(i)) runs from discontinuity sequence number \(e.0.map { "\($0)" } ?? "-") to \(e.1.map { "\($0)" } ?? "-"), playlist 1 from \(ends[0].0.map { "\($0)" } ?? "-") to \(ends[0].1.map { "\($0)" } ?? "-")")
        }
    }
}

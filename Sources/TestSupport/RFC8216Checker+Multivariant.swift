/// The checks of a multivariant ("master") playlist: §4.3.4's tags, their group references and
/// rendition groups, and no media playlist or media segment tag.
enum RFC8216Multivariant {
    static let streamInfTypes: [String: RFC8216AttributeType] = [
        "BANDWIDTH": .decimalInteger, "AVERAGE-BANDWIDTH": .decimalInteger, "CODECS": .quoted, "RESOLUTION": .resolution,
        "FRAME-RATE": .decimalFloat, "HDCP-LEVEL": .enumerated(["TYPE-0", "NONE"]), "AUDIO": .quoted, "VIDEO": .quoted,
        "SUBTITLES": .quoted, "CLOSED-CAPTIONS": .quotedOrEnumerated(["NONE"]), "PROGRAM-ID": .decimalInteger]
    static let streamInf = RFC8216TagSpec(rule: .streamInf, types: streamInfTypes, required: ["BANDWIDTH"])
    static let iFrameStreamInf = RFC8216TagSpec(rule: .iFrameStreamInf, types: streamInfTypes
        .filter { !["FRAME-RATE", "AUDIO", "SUBTITLES", "CLOSED-CAPTIONS"].contains($0.key) }
        .merging(["URI": .quoted]) { a, _ in a }, required: ["BANDWIDTH", "URI"])
    static let media = RFC8216TagSpec(rule: .media, types: [
        "TYPE": .enumerated(["AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS"]), "URI": .quoted, "GROUP-ID": .quoted,
        "LANGUAGE": .quoted, "ASSOC-LANGUAGE": .quoted, "NAME": .quoted, "DEFAULT": .enumerated(["YES", "NO"]),
        "AUTOSELECT": .enumerated(["YES", "NO"]), "FORCED": .enumerated(["YES", "NO"]), "INSTREAM-ID": .quoted,
        "CHARACTERISTICS": .quoted, "CHANNELS": .quoted], required: ["TYPE", "GROUP-ID", "NAME"])
    static let sessionData = RFC8216TagSpec(rule: .sessionData, types: [
        "DATA-ID": .quoted, "VALUE": .quoted, "URI": .quoted, "LANGUAGE": .quoted], required: ["DATA-ID"])
    static let sessionKey = RFC8216TagSpec(rule: .sessionKey, types: [
        "METHOD": .enumerated(["NONE", "AES-128", "SAMPLE-AES"]), "URI": .quoted, "IV": .hexadecimal(maxDigits: 32),
        "KEYFORMAT": .quoted, "KEYFORMATVERSIONS": .quoted], required: ["METHOD"])

    /// Checks `text` as a multivariant playlist, reporting into `f`.
    static func check(_ text: String, into f: inout RFC8216Findings) {
        let (lines, version, versionReadable) = RFC8216Text.checkLines(text, into: &f)
        RFC8216Text.checkKind(lines, expected: .multivariant, into: &f)
        var needs: [(version: UInt64, what: String, line: RFC8216Line)] = []
        var renditions: [(line: RFC8216Line, list: RFC8216AttributeList)] = []
        var references: [(line: RFC8216Line, list: RFC8216AttributeList, tag: String)] = []
        var closedCaptions: [(line: RFC8216Line, none: Bool)] = []
        var sessionDataSeen: [String: Int] = [:], sessionKeysSeen: [String: Int] = [:]
        var awaitingURI: RFC8216Line?

        for line in lines where line.kind != .blank && line.kind != .comment {
            if let pending = awaitingURI {
                awaitingURI = nil
                if !line.isURI { f.add(.streamInfURI, pending, "EXT-X-STREAM-INF is not followed by a URI line (line \(line.number) is a tag)") }
                if line.isURI { continue }
            } else if line.isURI {
                f.add(.streamInfURI, line, "a URI line that no EXT-X-STREAM-INF precedes"); continue
            }
            switch line.tagName {
            case "EXT-X-STREAM-INF":
                awaitingURI = line
                guard let list = streamInf.read(line, into: &f) else { break }
                checkCodecs(list, line: line, rule: .streamInf, into: &f)
                references.append((line, list, "EXT-X-STREAM-INF"))
                if let cc = list["CLOSED-CAPTIONS"] { closedCaptions.append((line, !cc.isQuoted && cc.raw == "NONE")) }
                else { closedCaptions.append((line, false)) }
            case "EXT-X-I-FRAME-STREAM-INF":
                guard let list = iFrameStreamInf.read(line, into: &f) else { break }
                checkCodecs(list, line: line, rule: .iFrameStreamInf, into: &f)
                references.append((line, list, "EXT-X-I-FRAME-STREAM-INF"))
            case "EXT-X-MEDIA":
                guard let list = media.read(line, into: &f) else { break }
                checkMedia(list, line: line, into: &f)
                if list["INSTREAM-ID"]?.value.hasPrefix("SERVICE") == true {
                    needs.append((7, "a SERVICE value of INSTREAM-ID", line))
                }
                renditions.append((line, list))
            case "EXT-X-SESSION-DATA":
                guard let list = sessionData.read(line, into: &f) else { break }
                if (list["VALUE"] == nil) == (list["URI"] == nil) {
                    f.add(.sessionData, line, "EXT-X-SESSION-DATA needs exactly one of VALUE and URI")
                }
                let key = "\(list["DATA-ID"]?.raw ?? "")|\(list["LANGUAGE"]?.raw ?? "-")"
                if let earlier = sessionDataSeen[key] {
                    f.add(.sessionData, line, "the same DATA-ID and LANGUAGE as line \(earlier)")
                } else { sessionDataSeen[key] = line.number }
            case "EXT-X-SESSION-KEY":
                guard let list = sessionKey.read(line, into: &f) else { break }
                RFC8216MediaPlaylist.checkKey(list, line: line, session: true, into: &f)
                let key = ["METHOD", "URI", "IV", "KEYFORMAT", "KEYFORMATVERSIONS"].map { list[$0]?.raw ?? "-" }.joined(separator: "|")
                if let earlier = sessionKeysSeen[key] {
                    f.add(.sessionKey, line, "the same METHOD, URI, IV, KEYFORMAT and KEYFORMATVERSIONS as line \(earlier)")
                } else { sessionKeysSeen[key] = line.number }
            default: break
            }
        }
        if let pending = awaitingURI { f.add(.streamInfURI, pending, "EXT-X-STREAM-INF is the last line: its URI line is REQUIRED") }
        checkGroups(renditions, into: &f)
        checkReferences(references, renditions: renditions, into: &f)
        if closedCaptions.contains(where: \.none), let other = closedCaptions.first(where: { !$0.none }) {
            f.add(.closedCaptionsNone, other.line, "CLOSED-CAPTIONS=NONE on another EXT-X-STREAM-INF, so every one MUST have it")
        }
        if versionReadable { RFC8216MediaPlaylist.reportVersions(needs, declared: version, into: &f) }
    }

    /// CODECS: a comma-separated list of RFC 6381 format identifiers.
    static func checkCodecs(_ list: RFC8216AttributeList, line: RFC8216Line, rule: RFC8216.Rule, into f: inout RFC8216Findings) {
        guard let codecs = list["CODECS"], codecs.isQuoted else { return }
        let formats = codecs.value.split(separator: ",", omittingEmptySubsequences: false)
        let ok = formats.allSatisfy { format in
            !format.isEmpty && format.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || ".-_+".contains($0)) }
        }
        if !ok { f.add(rule, line, "CODECS=\(codecs.raw) is not a comma-separated list of format identifiers") }
    }

    /// One EXT-X-MEDIA's own rules (§4.3.4.1, §4.3.4.2.1).
    static func checkMedia(_ list: RFC8216AttributeList, line: RFC8216Line, into f: inout RFC8216Findings) {
        let type = list["TYPE"]?.raw
        if list["DEFAULT"]?.raw == "YES", let auto = list["AUTOSELECT"], auto.raw != "YES" {
            f.add(.media, line, "DEFAULT=YES with AUTOSELECT=\(auto.raw) (it MUST be YES when present)")
        }
        if list["FORCED"] != nil && type != "SUBTITLES" { f.add(.media, line, "FORCED on TYPE=\(type ?? "?") (only SUBTITLES may have it)") }
        if type == "CLOSED-CAPTIONS" {
            if list["URI"] != nil { f.add(.media, line, "TYPE=CLOSED-CAPTIONS with a URI (MUST NOT be present)") }
            if let id = list["INSTREAM-ID"] {
                if id.isQuoted && !isInstreamID(id.value) {
                    f.add(.media, line, "INSTREAM-ID=\(id.raw) is not CC1-CC4 or SERVICE1-SERVICE63")
                }
            } else {
                f.add(.media, line, "TYPE=CLOSED-CAPTIONS lacks INSTREAM-ID (REQUIRED)")
            }
        } else if list["INSTREAM-ID"] != nil {
            f.add(.media, line, "INSTREAM-ID on TYPE=\(type ?? "?") (only CLOSED-CAPTIONS)")
        }
        if type == "SUBTITLES" && list["URI"] == nil { f.add(.media, line, "TYPE=SUBTITLES lacks URI (REQUIRED)") }
    }

    static func isInstreamID(_ s: String) -> Bool {
        if ["CC1", "CC2", "CC3", "CC4"].contains(s) { return true }
        guard s.hasPrefix("SERVICE"), let n = RFC8216Value.decimalInteger(String(s.dropFirst(7))) else { return false }
        return (1...63).contains(n) && !s.dropFirst(7).hasPrefix("0")
    }

    /// §4.3.4.1.1: within a group (one TYPE and GROUP-ID), distinct NAMEs and at most one
    /// DEFAULT=YES; groups of one TYPE have the same members (by NAME) with the same attributes
    /// but URI and CHANNELS.
    static func checkGroups(_ renditions: [(line: RFC8216Line, list: RFC8216AttributeList)], into f: inout RFC8216Findings) {
        var names: [String: Int] = [:], defaults: [String: Int] = [:]
        // TYPE → GROUP-ID → NAME → the other attributes, in the order the groups appear.
        var members: [String: [(group: String, byName: [String: (line: RFC8216Line, attributes: [String: String])])]] = [:]
        for r in renditions {
            let type = r.list["TYPE"]?.raw ?? "", groupID = r.list["GROUP-ID"]?.raw ?? "", name = r.list["NAME"]?.raw ?? ""
            var attributes: [String: String] = [:]
            for a in r.list.attributes where !["URI", "CHANNELS", "GROUP-ID"].contains(a.name) { attributes[a.name] = a.raw }
            var groups = members[type] ?? []
            if let i = groups.firstIndex(where: { $0.group == groupID }) {
                groups[i].byName[name] = groups[i].byName[name] ?? (r.line, attributes)
            } else {
                groups.append((groupID, [name: (r.line, attributes)]))
            }
            members[type] = groups
        }
        for (type, groups) in members.sorted(by: { $0.key < $1.key }) where groups.count > 1 {
            let first = groups[0]
            for other in groups.dropFirst() {
                if Set(other.byName.keys) != Set(first.byName.keys) {
                    let line = other.byName.values.map(\.line).min { $0.number < $1.number }
                    f.add(.renditionGroup, line, "TYPE=\(type) group \(other.group) has members \(other.byName.keys.sorted()), group \(first.group) has \(first.byName.keys.sorted()) (groups of one TYPE MUST have the same members)")
                    continue
                }
                for (name, member) in other.byName.sorted(by: { $0.key < $1.key }) where member.attributes != first.byName[name]!.attributes {
                    f.add(.renditionGroup, member.line, "member \(name) of group \(other.group) differs from the one of group \(first.group) (line \(first.byName[name]!.line.number)) in more than URI and CHANNELS")
                }
            }
        }
        for r in renditions {
            let group = "\(r.list["TYPE"]?.raw ?? "") \(r.list["GROUP-ID"]?.raw ?? "")"
            if let name = r.list["NAME"]?.raw {
                if let earlier = names["\(group) \(name)"] {
                    f.add(.renditionGroup, r.line, "NAME=\(name) again in group \(group) (line \(earlier))")
                } else { names["\(group) \(name)"] = r.line.number }
            }
            if r.list["DEFAULT"]?.raw == "YES" {
                if let earlier = defaults[group] {
                    f.add(.renditionGroup, r.line, "a second DEFAULT=YES in group \(group) (line \(earlier))")
                } else { defaults[group] = r.line.number }
            }
        }
    }

    /// AUDIO, VIDEO, SUBTITLES and quoted CLOSED-CAPTIONS name a GROUP-ID of an EXT-X-MEDIA of that TYPE.
    static func checkReferences(_ references: [(line: RFC8216Line, list: RFC8216AttributeList, tag: String)],
                                renditions: [(line: RFC8216Line, list: RFC8216AttributeList)], into f: inout RFC8216Findings) {
        let groups = Set(renditions.compactMap { r in r.list["GROUP-ID"].map { "\(r.list["TYPE"]?.raw ?? "") \($0.value)" } })
        for r in references {
            let names = r.tag == "EXT-X-STREAM-INF" ? ["AUDIO", "VIDEO", "SUBTITLES", "CLOSED-CAPTIONS"] : ["VIDEO"]
            for name in names {
                guard let a = r.list[name], a.isQuoted else { continue }
                if !groups.contains("\(name) \(a.value)") {
                    f.add(.groupReference, r.line, "\(name)=\(a.raw) names no EXT-X-MEDIA with TYPE=\(name) and that GROUP-ID")
                }
            }
        }
    }
}

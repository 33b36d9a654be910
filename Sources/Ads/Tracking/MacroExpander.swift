// VAST 4.x macro substitution: a pure function from (template, context) to the URL to request.
import Foundation
import Timing

/// Expands `[MACRO]` (and legacy `%%MACRO%%`) tokens in tracking, error and tag URLs.
///
/// Values are percent-encoded (RFC 3986 unreserved characters kept); list values are joined with
/// an unencoded comma; times are `HH:MM:SS.mmm`; `[TIMESTAMP]` is ISO 8601 with milliseconds and
/// zone offset. IAB macros without a value become `-1`, withheld ones `-2`; macros that are not in
/// the IAB list and have no value (Google's `[AD_MT]`, `[VIEWABILITY]`…) are left untouched.
public enum MacroExpander {
    /// Every macro name in the IAB VAST 4.x registry (`IAB_vast4-macros-data.json`).
    public static let iabMacroNames: Set<String> = [
        "TIMESTAMP", "CACHEBUSTING", "CONTENTPLAYHEAD", "MEDIAPLAYHEAD", "BREAKPOSITION", "BLOCKEDADCATEGORIES",
        "ADCATEGORIES", "ADCOUNT", "TRANSACTIONID", "PLACEMENTTYPE", "ADTYPE", "UNIVERSALADID", "BREAKMAXDURATION",
        "BREAKMAXADS", "BREAKMINADLENGTH", "BREAKMAXADLENGTH", "IFA", "IFATYPE", "CLIENTUA", "SERVERUA", "DEVICEUA",
        "SERVERSIDE", "DEVICEIP", "LATLONG", "DOMAIN", "PAGEURL", "APPBUNDLE", "VASTVERSIONS", "APIFRAMEWORKS",
        "EXTENSIONS", "VERIFICATIONVENDORS", "OMIDPARTNER", "MEDIAMIME", "PLAYERCAPABILITIES", "CLICKTYPE",
        "PLAYERSTATE", "INVENTORYSTATE", "PLAYERSIZE", "ADPLAYHEAD", "ASSETURI", "CONTENTID", "CONTENTURI",
        "PODSEQUENCE", "ADSERVINGID", "CLICKPOS", "ERRORCODE", "REASON", "LIMITADTRACKING", "REGULATIONS",
        "GDPRCONSENT", "STOREID", "STOREURL", "PLAYBACKMETHODS", "CONTENTCAT", "GPPSTRING", "GPPSECTIONID",
        "DSAREQUIRED", "DSAPARAMS", "DSAPUBRENDER", "BREAKMINDURATION",
        // VMAP 1.0 spellings.
        "ERROR_CODE", "ERROR_MESSAGE",
    ]

    /// Expands every macro in `template` from `context`.
    public static func expand(_ template: URLTemplate, context: MacroContext) -> String {
        expand(template.template, context: context)
    }

    /// Most bytes that substitutions may add to one URL (64 KiB; servers refuse far shorter
    /// URLs): past it the rest of the template is copied as it stands, so that an expanded URL is
    /// never longer than its template plus this.
    public static let maxAddedBytes = 65_536

    /// Expands every macro in a template string from `context`, in one pass: linear in the
    /// template's length, each distinct macro's value computed once.
    public static func expand(_ template: String, context: MacroContext) -> String {
        // UTF-8 bytes in, bytes out, one String made at the end: appending to a String's scalar
        // view grew worse than linearly (20,000 macros took 21 s in a debug build, 120,000 for ever).
        // Macro names and their brackets are ASCII, so no multi-byte character is ever split.
        let bytes = Array(template.utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var cache: [String: [UInt8]?] = [:]
        var added = 0
        let open = UInt8(ascii: "["), close = UInt8(ascii: "]"), percent = UInt8(ascii: "%")
        var i = 0
        while i < bytes.count {
            let c = bytes[i]
            if added <= maxAddedBytes, c == open || (c == percent && i + 1 < bytes.count && bytes[i + 1] == percent) {
                let width = c == open ? 1 : 2
                var j = i + width
                while j < bytes.count && j - i <= 40 && isNameByte(bytes[j]) { j += 1 }
                let nameEnd = j
                let closed = c == open ? nameEnd < bytes.count && bytes[nameEnd] == close
                    : nameEnd + 1 < bytes.count && bytes[nameEnd] == percent && bytes[nameEnd + 1] == percent
                if nameEnd > i + width, closed {
                    let name = String(decoding: bytes[(i + width)..<nameEnd], as: UTF8.self)
                    let value: [UInt8]?
                    if let known = cache[name] { value = known } else {
                        value = Self.value(for: name, context: context).map { Array($0.utf8) }
                        cache[name] = value
                    }
                    if let value {
                        out.append(contentsOf: value)
                        added += value.count
                        i = nameEnd + width
                        continue
                    }
                }
            }
            out.append(c)
            i += 1
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func isNameByte(_ b: UInt8) -> Bool {
        (b >= UInt8(ascii: "A") && b <= UInt8(ascii: "Z")) || (b >= UInt8(ascii: "a") && b <= UInt8(ascii: "z"))
            || (b >= UInt8(ascii: "0") && b <= UInt8(ascii: "9")) || b == UInt8(ascii: "_")
    }

    /// The encoded substitution for a macro name, or nil to leave the token untouched.
    static func value(for name: String, context c: MacroContext) -> String? {
        if let v = c.values[name] { return encode(v) }
        // Legacy cache-busters: Auditude's [RANDOM]/[random], DCM's lower-case [timestamp].
        if name == "RANDOM" || name == "random" || name == "timestamp" || name == "CACHEBUSTER" {
            return cacheBuster(c.cacheBusting)
        }
        guard iabMacroNames.contains(name) else { return nil }
        if c.withheld.contains(name) { return "-2" }
        let known: String?
        switch name {
        case "ERRORCODE", "ERROR_CODE": known = c.errorCode.map { String($0.rawValue) }
        case "ERROR_MESSAGE": known = c.errorMessage.map(percentEncode)
        case "CACHEBUSTING": known = cacheBuster(c.cacheBusting)
        case "TIMESTAMP": known = percentEncode(timestamp(c.timestamp, offsetSeconds: c.timeZoneOffsetSeconds))
        case "CONTENTPLAYHEAD", "MEDIAPLAYHEAD": known = c.contentPlayhead.map { percentEncode(timecode($0)) }
        case "ADPLAYHEAD": known = c.adPlayhead.map { percentEncode(timecode($0)) }
        case "ASSETURI": known = c.assetURI.map(percentEncode)
        case "BREAKPOSITION": known = c.breakCue.map { String($0.rank + 1) }
        case "ADCOUNT": known = c.adCount.map(String.init)
        case "PODSEQUENCE": known = c.podSequence.map(String.init)
        case "ADSERVINGID": known = c.adServingId.map(percentEncode)
        case "UNIVERSALADID":
            known = c.universalAdIds.isEmpty ? nil
                : c.universalAdIds.map { percentEncode("\($0.registry) \($0.value)") }.joined(separator: ",")
        case "REASON": known = c.reason.map(String.init)
        case "LIMITADTRACKING": known = c.limitAdTracking.map { $0 ? "1" : "0" }
        case "SERVERSIDE": known = c.serverSide.map { String($0.rawValue) }
        default: known = nil
        }
        return known ?? "-1"
    }

    static func encode(_ v: MacroValue) -> String {
        switch v {
        case .string(let s): return percentEncode(s)
        case .list(let items): return items.map(percentEncode).joined(separator: ",")
        }
    }

    static func cacheBuster(_ n: Int) -> String {
        let v = ((n % 100_000_000) + 100_000_000) % 100_000_000
        let s = String(v)
        return String(repeating: "0", count: 8 - s.count) + s
    }

    /// Percent-encodes everything but RFC 3986 unreserved characters (`A–Z a–z 0–9 - . _ ~`).
    public static func percentEncode(_ s: String) -> String {
        var out = ""
        for byte in s.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                 UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."),
                 UInt8(ascii: "_"), UInt8(ascii: "~"):
                out.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".unicodeScalars)
                out.unicodeScalars.append("%")
                out.unicodeScalars.append(hex[Int(byte >> 4)])
                out.unicodeScalars.append(hex[Int(byte & 0xF)])
            }
        }
        return out
    }

    /// `HH:MM:SS.mmm` (hours zero-padded to two digits, more if needed; negative times clamp to zero).
    public static func timecode(_ t: MediaTime) -> String {
        (t < .zero ? MediaTime.zero : t).clockString
    }

    /// ISO 8601 with milliseconds and zone offset: `2016-01-17T08:15:07.127-05:00`.
    public static func timestamp(_ date: Date, offsetSeconds: Int) -> String {
        String(decoding: CivilDate.iso8601(milliseconds: Int64((date.timeIntervalSince1970 * 1000).rounded(.down)), offsetSeconds: offsetSeconds),
               as: UTF8.self)
    }
}

import Files
import Foundation
import Manifest
import Playback
import Timing

/// Builds a VMAP document for breaks an app schedules itself (IMA's recipe for custom cue points:
/// your own ad rules as an `adsResponse`). Each break's pod lists ad tags (as wrappers, so their
/// ads — a pod, even — come in through the normal resolution) and media files (as inline ads).
package enum AdRulesBuilder {
    /// An ad in an app-scheduled break.
    package enum AdReference: Sendable, Equatable {
        /// A VAST tag: URL or local path.
        case tag(String)
        /// A media file: URL or local path.
        case media(String)

        /// Guesses which `text` is: a local file whose first bytes are `<` is a tag; a URL or path
        /// ending in a media extension is media; other URLs and `.xml` files are tags.
        package static func guess(_ text: String) -> AdReference {
            let lower = text.lowercased()
            let mediaExtensions = [".mp4", ".m4v", ".mov", ".webm", ".mkv", ".ts", ".avi", ".flv", ".3gp", ".ogv", ".mpg", ".mpeg"]
            // the first bytes of a regular file only: opening a FIFO to sniff it would wait for a writer
            if let head = LocalFile.head(text, bytes: 512) {
                let trimmed = String(decoding: head, as: UTF8.self).drop { $0.isWhitespace || $0 == "\u{FEFF}" }
                return trimmed.hasPrefix("<") ? .tag(text) : .media(text)
            }
            if mediaExtensions.contains(where: { lower.hasSuffix($0) }) { return .media(text) }
            return .tag(text)
        }
    }

    /// A VMAP 1.0 document with one AdBreak per entry, ids as given.
    package static func vmap(_ breaks: [(id: String, position: BreakCue, ads: [AdReference])]) -> String {
        var xml = #"<?xml version="1.0" encoding="UTF-8"?>"# + "\n"
        xml += #"<vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">"# + "\n"
        for b in breaks {
            let offset: String
            switch b.position {
            case .preroll: offset = "start"
            case .postroll: offset = "end"
            // HH:MM:SS.mmm when that is exact; otherwise the exact decimal seconds (which Interlude's
            // own VMAP reader takes), so a cue given with more digits is not rounded on this path.
            case .midroll(let t): offset = (t * 1000).reduced.timescale == 1 ? t.clockString : (t.exactDecimalString ?? t.clockString)
            }
            xml += #"  <vmap:AdBreak timeOffset="\#(offset)" breakType="linear" breakId="\#(XMLText.escape(b.id))">"# + "\n"
            xml += #"    <vmap:AdSource id="\#(XMLText.escape(b.id))-source" allowMultipleAds="true" followRedirects="true">"# + "\n"
            xml += #"      <vmap:VASTAdData><VAST version="4.1">"# + "\n"
            for (i, ad) in b.ads.enumerated() {
                let seq = b.ads.count > 1 ? #" sequence="\#(i + 1)""# : ""
                switch ad {
                case .tag(let url):
                    xml += #"        <Ad id="\#(XMLText.escape(b.id))-\#(i + 1)"\#(seq)><Wrapper followAdditionalWrappers="true" allowMultipleAds="true">"#
                    xml += "<AdSystem>interlude</AdSystem><VASTAdTagURI><![CDATA[\(absolute(url))]]></VASTAdTagURI><Creatives/></Wrapper></Ad>\n"
                case .media(let url):
                    let name = XMLText.escape((url as NSString).lastPathComponent)
                    xml += #"        <Ad id="\#(XMLText.escape(b.id))-\#(i + 1)"\#(seq)><InLine><AdSystem>interlude</AdSystem><AdTitle>\#(name)</AdTitle>"#
                    xml += #"<Creatives><Creative id="\#(XMLText.escape(b.id))-\#(i + 1)"><Linear><Duration>00:00:00</Duration><MediaFiles>"#
                    xml += #"<MediaFile delivery="progressive" type="\#(mimeType(url))"><![CDATA[\#(absolute(url))]]></MediaFile>"#
                    xml += "</MediaFiles></Linear></Creative></Creatives></InLine></Ad>\n"
                }
            }
            xml += "      </VAST></vmap:VASTAdData>\n    </vmap:AdSource>\n  </vmap:AdBreak>\n"
        }
        return xml + "</vmap:VMAP>\n"
    }

    /// A local path as an absolute `file://` URL; URLs unchanged.
    static func absolute(_ s: String) -> String {
        if let u = URL(string: s), u.scheme != nil { return s }
        let path = s.hasPrefix("/") ? s : FileManager.default.currentDirectoryPath + "/" + s
        return URL(fileURLWithPath: path).absoluteString
    }

    static func mimeType(_ s: String) -> String {
        switch (s as NSString).pathExtension.lowercased() {
        case "webm": return "video/webm"
        case "mov": return "video/quicktime"
        case "ts": return "video/mp2t"
        case "mkv": return "video/webm"   // Matroska, WebM's parent format
        case "3gp": return "video/3gpp"
        case "ogv": return "video/ogg"
        default: return "video/mp4"
        }
    }
}

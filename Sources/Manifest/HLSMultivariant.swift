import Foundation
import Timing

extension HLS {
    /// A multivariant playlist: the variant streams a player chooses between, the renditions
    /// (`EXT-X-MEDIA`) they refer to, and I-frame variants.
    public struct MultivariantPlaylist: Sendable, Hashable {
        /// `EXT-X-INDEPENDENT-SEGMENTS`.
        public var independentSegments: Bool
        /// `EXT-X-MEDIA`, in order.
        public var renditions: [Rendition]
        /// `EXT-X-STREAM-INF`, in order (a player usually starts with the first).
        public var variants: [Variant]
        /// `EXT-X-I-FRAME-STREAM-INF`.
        public var iFrameVariants: [IFrameVariant]

        /// A multivariant playlist.
        public init(independentSegments: Bool = true, renditions: [Rendition] = [], variants: [Variant],
                    iFrameVariants: [IFrameVariant] = []) {
            self.independentSegments = independentSegments; self.renditions = renditions; self.variants = variants
            self.iFrameVariants = iFrameVariants
        }

        /// Why this playlist breaks RFC 8216's rules, nil when it does not: a variant without a
        /// positive BANDWIDTH (§4.3.4.2) or URI, a group it names that no rendition of that type
        /// has (§4.3.4.2.1), a rendition without TYPE/GROUP-ID/NAME, DEFAULT without AUTOSELECT,
        /// two renditions of one group with one NAME (§4.3.4.1).
        public func validate() -> String? {
            for (i, v) in variants.enumerated() {
                guard v.bandwidth > 0 else { return "variant \(i) has no positive BANDWIDTH" }
                guard HLS.isValidURI(v.uri) else { return "variant \(i) has no URI" }
                if let a = v.averageBandwidth, a <= 0 { return "variant \(i) has a non-positive AVERAGE-BANDWIDTH" }
                for (type, group) in [(MediaType.audio, v.audio), (.video, v.video), (.subtitles, v.subtitles)] {
                    if let group, !renditions.contains(where: { $0.type == type && $0.groupID == group }) {
                        return "variant \(i) names \(type.rawValue) group \(group), which no EXT-X-MEDIA has"
                    }
                }
                if case .group(let g) = v.closedCaptions, !renditions.contains(where: { $0.type == .closedCaptions && $0.groupID == g }) {
                    return "variant \(i) names CLOSED-CAPTIONS group \(g), which no EXT-X-MEDIA has"
                }
            }
            var names = Set<String>()
            for r in renditions {
                guard !r.groupID.isEmpty, !r.name.isEmpty else { return "an EXT-X-MEDIA without GROUP-ID or NAME" }
                if r.isDefault && !r.autoselect { return "rendition \(r.name): DEFAULT=YES needs AUTOSELECT=YES" }
                if r.type == .closedCaptions && (r.uri != nil || r.instreamID == nil) {
                    return "rendition \(r.name): CLOSED-CAPTIONS takes an INSTREAM-ID and no URI"
                }
                guard names.insert(r.type.rawValue + "/" + r.groupID + "/" + r.name).inserted else {
                    return "two renditions named \(r.name) in group \(r.groupID)"
                }
            }
            return nil
        }
    }

    /// `TYPE` of an `EXT-X-MEDIA`.
    public enum MediaType: String, Sendable, Hashable {
        /// `AUDIO`.
        case audio = "AUDIO"
        /// `VIDEO`.
        case video = "VIDEO"
        /// `SUBTITLES`.
        case subtitles = "SUBTITLES"
        /// `CLOSED-CAPTIONS`.
        case closedCaptions = "CLOSED-CAPTIONS"
    }

    /// `EXT-X-MEDIA`: an alternative rendition (a language's audio, subtitles, …).
    public struct Rendition: Sendable, Hashable {
        /// `TYPE`.
        public var type: MediaType
        /// `GROUP-ID`.
        public var groupID: String
        /// `NAME`.
        public var name: String
        /// `LANGUAGE` (RFC 5646).
        public var language: String?
        /// `ASSOC-LANGUAGE`.
        public var assocLanguage: String?
        /// `DEFAULT=YES`.
        public var isDefault: Bool
        /// `AUTOSELECT=YES`.
        public var autoselect: Bool
        /// `FORCED=YES` (subtitles only).
        public var forced: Bool
        /// `INSTREAM-ID` (closed captions only).
        public var instreamID: String?
        /// `CHARACTERISTICS`.
        public var characteristics: String?
        /// `CHANNELS` (audio).
        public var channels: String?
        /// `URI` of its media playlist (none: carried in the variant's own segments).
        public var uri: String?

        /// A rendition.
        public init(type: MediaType, groupID: String, name: String, language: String? = nil, assocLanguage: String? = nil,
                    isDefault: Bool = false, autoselect: Bool = false, forced: Bool = false, instreamID: String? = nil,
                    characteristics: String? = nil, channels: String? = nil, uri: String? = nil) {
            self.type = type; self.groupID = groupID; self.name = name; self.language = language
            self.assocLanguage = assocLanguage; self.isDefault = isDefault; self.autoselect = autoselect; self.forced = forced
            self.instreamID = instreamID; self.characteristics = characteristics; self.channels = channels; self.uri = uri
        }
    }

    /// `CLOSED-CAPTIONS` of a variant.
    public enum ClosedCaptions: Sendable, Hashable {
        /// `CLOSED-CAPTIONS=NONE`: the variant carries none.
        case none
        /// A group of `EXT-X-MEDIA` of type CLOSED-CAPTIONS.
        case group(String)
    }

    /// `EXT-X-STREAM-INF` and its URI: one variant stream.
    public struct Variant: Sendable, Hashable {
        /// The URI of its media playlist.
        public var uri: String
        /// `BANDWIDTH`: the peak segment bit rate, bits/s.
        public var bandwidth: Int
        /// `AVERAGE-BANDWIDTH`: the average segment bit rate, bits/s.
        public var averageBandwidth: Int?
        /// `CODECS` (RFC 6381), e.g. `avc1.64001f,mp4a.40.2`.
        public var codecs: String?
        /// `RESOLUTION`.
        public var resolution: Resolution?
        /// `FRAME-RATE`, written to three decimals.
        public var frameRate: Rational?
        /// `AUDIO`, `VIDEO`, `SUBTITLES` groups.
        public var audio: String?, video: String?, subtitles: String?
        /// `CLOSED-CAPTIONS`.
        public var closedCaptions: ClosedCaptions?

        /// A variant.
        public init(uri: String, bandwidth: Int, averageBandwidth: Int? = nil, codecs: String? = nil,
                    resolution: Resolution? = nil, frameRate: Rational? = nil, audio: String? = nil,
                    video: String? = nil, subtitles: String? = nil, closedCaptions: ClosedCaptions? = nil) {
            self.uri = uri; self.bandwidth = bandwidth; self.averageBandwidth = averageBandwidth; self.codecs = codecs
            self.resolution = resolution; self.frameRate = frameRate; self.audio = audio; self.video = video
            self.subtitles = subtitles; self.closedCaptions = closedCaptions
        }
    }

    /// `RESOLUTION`: pixels.
    public struct Resolution: Sendable, Hashable {
        /// Width.
        public var width: Int
        /// Height.
        public var height: Int

        /// A resolution.
        public init(width: Int, height: Int) { self.width = width; self.height = height }
    }

    /// `EXT-X-I-FRAME-STREAM-INF`: a playlist of I-frames for trick play.
    public struct IFrameVariant: Sendable, Hashable {
        /// `URI`.
        public var uri: String
        /// `BANDWIDTH`.
        public var bandwidth: Int
        /// `CODECS`.
        public var codecs: String?
        /// `RESOLUTION`.
        public var resolution: Resolution?

        /// An I-frame variant.
        public init(uri: String, bandwidth: Int, codecs: String? = nil, resolution: Resolution? = nil) {
            self.uri = uri; self.bandwidth = bandwidth; self.codecs = codecs; self.resolution = resolution
        }
    }
}

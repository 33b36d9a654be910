import Foundation

/// How a demuxed live HLS origin (`LiveOrigin` with `dash: true`) sample-encrypts its video as a
/// DRM packager does (`cbcs` or `cenc` CMAF): its initialization segment and each media segment
/// rewritten by the test's encryptor, its video playlists carrying `keyTag` after their
/// `EXT-X-MAP` and its MPD's video AdaptationSet `descriptors`. The audio stays clear.
public struct LiveOriginSampleEncryption: Sendable {
    /// The `EXT-X-KEY` line of the video playlists (`METHOD=SAMPLE-AES`, a URI, `KEYFORMAT` …).
    public var keyTag: String
    /// The video initialization segment encrypted (`encv`, `sinf`, `pssh`).
    public var initSegment: @Sendable (Data) throws -> Data
    /// A video media segment encrypted (`senc`, `saiz`, `saio`).
    public var segment: @Sendable (Data) throws -> Data
    /// The `ContentProtection` elements of the MPD's video AdaptationSet (`/live.mpd`), as lines.
    public var descriptors: [String]

    /// A key rotation as a DRM packager makes one: from video segment `at` on (the origin's
    /// segment index), the video encrypted by `segment` under another key, its initialization
    /// segment (`init-r.mp4`, by `initSegment`: another `default_KID`) and `keyTag` named again
    /// in the HLS video playlists before that segment; `/live.mpd` starts a Period there (`p1`,
    /// its video AdaptationSet under `descriptors`, its timelines' `presentationTimeOffset` its
    /// start), as DASH packagers rotate keys.
    public struct Rotation: Sendable {
        /// The origin's segment index the new key starts at.
        public var at: Int
        /// The `EXT-X-KEY` line of the new key.
        public var keyTag: String
        /// The `ContentProtection` elements of the MPD's second Period, as lines.
        public var descriptors: [String]
        /// The video initialization segment under the new key (`init-r.mp4`).
        public var initSegment: @Sendable (Data) throws -> Data
        /// A video media segment from `at` on, encrypted with the new key.
        public var segment: @Sendable (Data) throws -> Data

        /// A rotation at segment `at`.
        public init(at: Int, keyTag: String, descriptors: [String] = [], initSegment: @escaping @Sendable (Data) throws -> Data,
                    segment: @escaping @Sendable (Data) throws -> Data) {
            self.at = at; self.keyTag = keyTag; self.descriptors = descriptors; self.initSegment = initSegment; self.segment = segment
        }
    }
    /// The key rotation, if any.
    public var rotation: Rotation?

    /// An encryption of the origin's video.
    public init(keyTag: String, descriptors: [String] = [], initSegment: @escaping @Sendable (Data) throws -> Data,
                segment: @escaping @Sendable (Data) throws -> Data) {
        self.keyTag = keyTag; self.descriptors = descriptors; self.initSegment = initSegment; self.segment = segment
    }
}

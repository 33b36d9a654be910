import Foundation
import Timing

/// HTTP Live Streaming playlists (RFC 8216) as values: a multivariant playlist of variants and
/// renditions, a media playlist of segments with the tags that apply to them, one writer
/// (`HLS.write`) and one parser (`HLS.parse`). A live media playlist that changes refresh by
/// refresh is an `HLS.LivePlaylist`, which keeps RFC 8216 §6.2.1–6.2.2 by construction.
///
/// Durations are exact (`MediaTime`); text is made only by the writer, so every playlist the
/// service, the stitch and the tests write follows the same rules.
public enum HLS {
    /// A parsed playlist: one of the two kinds.
    public enum Playlist: Sendable, Equatable {
        /// A media playlist (segments).
        case media(MediaPlaylist)
        /// A multivariant playlist (variants and renditions).
        case multivariant(MultivariantPlaylist)
    }

    /// The MIME type of a playlist (`application/vnd.apple.mpegurl`).
    public static let mimeType = "application/vnd.apple.mpegurl"
}

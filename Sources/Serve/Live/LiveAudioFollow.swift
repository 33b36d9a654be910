import Manifest

/// An HLS origin's audio rendition with a playlist of its own, as a `LiveChannel` follows it.
struct LiveAudioFollow: Sendable {
    /// Its playlist.
    var location: HLSLocation
    /// The origin's `EXT-X-MEDIA` for it.
    var rendition: HLS.Rendition
    /// Its segments fetched so far, in order, each with the media span read from it.
    var segments: [LiveMPD.TrackSegment] = []
    /// Its playlist has ended.
    var ended = false
    /// The media sequence number of its next segment to take.
    var next = 0
}

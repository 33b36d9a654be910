// What an ad played through the player put on the stream, as the one placed-ad type.
import Playback
import Timing

extension AdPlayback {
    /// The ad as placed: the stitch's full account when the player gave one, else the placement
    /// made from what it reports (a player presenting frames), at `podPosition` of `totalAds`.
    package func placement(of media: AdMedia, podPosition: Int, totalAds: Int) -> PlacedAd {
        placement ?? PlacedAd(mediaFile: media.url, streamTime: streamStart, duration: duration, mediaDuration: media.duration,
                              podPosition: podPosition, totalAds: totalAds, frames: frames)
    }
}

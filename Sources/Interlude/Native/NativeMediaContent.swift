// The video of a native ad, as GMA's GADMediaContent and GADVideoController.
import Foundation
import Timing

/// The media of a native ad (GMA's `GADMediaContent`): a video when the response has a usable
/// video asset, else nothing (a custom native ad's media view is empty without video: the app
/// shows its image asset instead, as the guide's example does).
public final class MediaContent: Sendable {
    /// The video's media file (chosen from the asset's VAST like VAST ad media), when there is one.
    public let videoURL: String?
    /// Whether the ad has a video.
    public var hasVideoContent: Bool { videoURL != nil }
    /// Controls (and tells about) the video.
    public let videoController: VideoController
    /// Width over height of the video when the VAST declared a size, else nil.
    public let aspectRatio: Double?

    /// Why a video asset of the response gave no video (its VAST unusable, a wrapper failed, no
    /// playable media file), when it did not; nil otherwise.
    public let videoProblem: String?

    init(videoURL: String?, aspectRatio: Double?, problem: String? = nil) {
        self.videoURL = videoURL
        self.aspectRatio = aspectRatio
        self.videoProblem = problem
        self.videoController = VideoController(hasVideo: videoURL != nil)
    }
}

/// The video controller of a native ad (GMA's `GADVideoController`).
public final class VideoController: Sendable {
    private let hasVideo: Bool
    init(hasVideo: Bool) { self.hasVideo = hasVideo }
    /// Whether the ad has video content.
    public func hasVideoContent() -> Bool { hasVideo }
}

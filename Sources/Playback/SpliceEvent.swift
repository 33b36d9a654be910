import Timing

/// What the frame loop reports as it goes, in output order. Stream times are output times; ad
/// times are measured from the ad's first frame.
package enum SpliceEvent: Sendable {
    /// Content paused and ad break `index` began.
    case breakStarted(index: Int, id: String, contentTime: MediaTime, streamTime: MediaTime)
    /// Ad `position` (1-based) of `totalAds` in break `breakIndex` showed its first frame.
    case adStarted(breakIndex: Int, position: Int, totalAds: Int, media: AdMedia, streamTime: MediaTime)
    /// An ad frame was shown at ad time `adTime`.
    case adProgress(breakIndex: Int, position: Int, adTime: MediaTime, streamTime: MediaTime)
    /// The ad ended after `duration` of output.
    case adEnded(breakIndex: Int, position: Int, duration: MediaTime, streamTime: MediaTime)
    /// Ad break `index` ended; content (or the next break) follows at `streamTime`.
    case breakEnded(index: Int, streamTime: MediaTime)
    /// Content resumed (or started) at `contentTime`.
    case contentResumed(contentTime: MediaTime, streamTime: MediaTime)
    /// A content frame at `contentTime` was shown: the playhead moved.
    case contentProgress(contentTime: MediaTime, streamTime: MediaTime)
    /// The last content frame has been shown.
    case contentEnded(contentTime: MediaTime, streamTime: MediaTime)
    /// Double-box break `id` began at the content frame at `contentTime`: content goes on beside
    /// its ads, as `style` says (its ads are in the result's breaks, not in `adStarted` events).
    case doubleBoxStarted(id: String, style: DoubleBoxStyle, contentTime: MediaTime, streamTime: MediaTime)
    /// Double-box break `id` ended (its last ad frame showed before `streamTime`).
    case doubleBoxEnded(id: String, streamTime: MediaTime)
}

import Ads
import Foundation
import Playback
import Threads
import Timing

/// The VMAP extension that asks for a double-box break (Interlude's own; documented in the README):
///
/// ```xml
/// <vmap:AdBreak timeOffset="00:00:10.000" breakType="linear" breakId="box">
///   <vmap:AdSource>…</vmap:AdSource>
///   <vmap:Extensions>
///     <vmap:Extension type="interlude:doublebox" mode="doublebox" contentLevel="-12dB"/>
///   </vmap:Extensions>
/// </vmap:AdBreak>
/// ```
/// `mode` is `doublebox` (the default: ads full size, content in a window) or `doublebox-reverse`;
/// `contentLevel` is dB from -60 to 0 or `mute` (default -12dB).
extension DoubleBoxStyle {
    /// The extension's `type`.
    static let vmapExtensionType = "interlude:doublebox"

    /// The style a break's VMAP extensions ask for; nil when none does. Throws when the extension
    /// is there but malformed.
    package init?(vmapExtensions: [VASTExtension]) throws {
        guard let e = vmapExtensions.first(where: { $0.type?.lowercased() == Self.vmapExtensionType }) else { return nil }
        let mode = e.attributes["mode"] ?? "doublebox"
        try self.init(parsing: e.attributes["contentLevel"].map { "\(mode):\($0)" } ?? mode)
    }
}

/// A display that can play a break beside content that keeps going (a double box): a player's
/// (`PlayerVideoDisplay`).
protocol DoubleBoxCapableDisplay: AdVideoDisplay {
    /// Starts a double-box break at content time `contentTime` for ads lasting `podDuration`;
    /// throws when it cannot (the break then plays as a standard one). Called on the manager's queue.
    func beginDoubleBox(id: String, contentTime: MediaTime, style: DoubleBoxStyle, podDuration: MediaTime) throws(AdError) -> DoubleBoxRun
}

/// A double-box break under way: the manager plays its ads through it one by one, as through an
/// `AdVideoDisplay`, while content goes on; their frames arrive as the content frames of the
/// break are presented. Used on the manager's queue: what it changes is a `LoopBound` of
/// `owner`, which follows the manager's queue once the manager has it (`startDoubleBox`).
final class DoubleBoxRun: @unchecked Sendable {
    // @unchecked Sendable: its mutable state is a `LoopBound` of the manager's queue; its layer's
    // a `LoopBound` of the frame loop.
    /// The layer drawing the break.
    let layer: DoubleBoxLayer
    private let period: MediaTime
    private let finish: (DoubleBoxLayer) -> Void
    /// Follows the manager's queue.
    let owner = ThreadOwner(name: "a double box's manager queue")
    private struct Queued {
        var beforeFirstAd: (() -> Void)?
        var shownFrames: BoxAdFrames?
    }
    private let queued: LoopBound<Queued>
    private var beforeFirstAd: (() -> Void)? { get { queued.value.beforeFirstAd } _modify { yield &queued.value.beforeFirstAd } }
    private var shownFrames: BoxAdFrames? { get { queued.value.shownFrames } _modify { yield &queued.value.shownFrames } }

    /// A run on a player: `beforeFirstAd` runs once the first ad is queued (content resumes),
    /// `finish` when the break is over.
    init(layer: DoubleBoxLayer, period: MediaTime, beforeFirstAd: @escaping () -> Void, finish: @escaping (DoubleBoxLayer) -> Void) {
        self.layer = layer
        self.period = period
        self.finish = finish
        queued = LoopBound(Queued(beforeFirstAd: beforeFirstAd), owner: owner, name: "its queued ads")
    }

    /// How the break shows.
    var style: DoubleBoxStyle { layer.style }

    /// Queues an ad: `onFrame(adTime, streamTime)` on `queue` for each of its frames (false ends
    /// it), then `completion` there with where it landed. With `marks`, `onFrame` sees only the
    /// marked frames.
    func playAd(_ media: AdMedia, position: Int, totalAds: Int, marks: AdFrameMarks? = nil, queue: DispatchQueue,
                       onFrame: @escaping @Sendable (MediaTime, MediaTime) -> Bool,
                       completion: @escaping @Sendable (Result<PlacedAd, Error>) -> Void) {
        let period = self.period
        let frames = BoxAdFrames(marks)
        shownFrames = frames
        // The layer calls this on the frame loop's thread (outside the surface's lock). A marked
        // frame goes to `queue` as the loop's own ad frames do (`AdFrameMarks`): waited for when
        // the marks say so (the manager's marks do for a double box), else queued, a false answer
        // ending the ad once the next frame is out; the others are not handed over. While the
        // loop waits for the queue it lends it the layer (the end handler queues the next ad).
        let owner = layer.loopOwner
        layer.enqueue(media, onFrame: { adTime, streamTime in
            let (marked, waits, ending) = frames.next(adTime)
            if marked && waits { return owner.lend { runAndWait(on: queue) { onFrame(adTime, streamTime) } } && !ending }
            if marked { queue.async { if !onFrame(adTime, streamTime) { frames.end() } } }
            return !ending
        }, completion: { placed in
            owner.lend { runAndWait(on: queue) {
                completion(.success(PlacedAd(mediaFile: media.url, streamTime: placed.streamTime, duration: period * placed.frames,
                                             mediaDuration: media.duration, podPosition: position, totalAds: totalAds,
                                             frames: placed.frames)))
            } }
        })
        if let start = beforeFirstAd { beforeFirstAd = nil; start() }
    }

    /// The break is over: it goes on the timeline as a break that overlapped content.
    func end() { finish(layer) }

    /// Ends the ad queued last once its next frame is out (a skip or a discard), as `onFrame`
    /// answering false there would.
    func stopAd() { shownFrames?.end() }
}

/// One double-box ad's frames as the loop's thread sees them: whether the manager is shown a
/// frame, and waited for (`AdFrameMarks`), and an end asked from the manager's queue.
private final class BoxAdFrames: Sendable {
    private struct State {
        var filter: AdFrameFilter
        var ending = false
    }
    private let state: Locked<State>

    init(_ marks: AdFrameMarks?) { state = Locked(State(filter: AdFrameFilter(marks))) }

    /// The frame at `adTime` is out: whether it is marked, whether its answer is waited for, and
    /// whether the ad ends with it.
    func next(_ adTime: MediaTime) -> (marked: Bool, waits: Bool, ending: Bool) {
        state.withLock { s in (s.filter.isMarked(adTime), s.filter.waits, s.ending) }
    }

    func end() { state.withLock { $0.ending = true } }
}

extension AdsManager {
    /// Starts break `plan` as a double box when its VMAP extension asks for one and the display can;
    /// nil: it plays as a standard break (a LOG event says why when a double box was asked for).
    func startDoubleBox(_ plan: BreakPlan, pausedAt: MediaTime, podDuration: MediaTime) -> DoubleBoxRun? {
        let style: DoubleBoxStyle
        do {
            guard let s = try DoubleBoxStyle(vmapExtensions: plan.scheduled.extensions) else { return nil }
            style = s
        } catch {
            logDoubleBox(plan, "its double-box extension is malformed (\(error)); it plays as a standard break")
            return nil
        }
        guard let display = request.adDisplayContainer.videoDisplay as? DoubleBoxCapableDisplay else {
            logDoubleBox(plan, "this display cannot play a double box; it plays as a standard break")
            return nil
        }
        do {
            let run = try display.beginDoubleBox(id: plan.id, contentTime: pausedAt, style: style, podDuration: podDuration)
            run.owner.follow(decided.owner)
            return run
        } catch {
            logDoubleBox(plan, "\(error.message); it plays as a standard break")
            return nil
        }
    }

    private func logDoubleBox(_ plan: BreakPlan, _ message: String) {
        deliver(.log, ad: nil, data: ["type": AdErrorType.adPlayingFailed.rawValue, "errorCode": "1201",
                                      "errorMessage": "break \(plan.id): \(message)"])
    }
}

import Foundation
import Timing

/// What `Player` asks of its frame loop. Two loops implement it: `PlayerEngine` presents every
/// frame on the `RenderSurface` (real time or as fast as possible, to any attached outputs), and
/// `SpliceBackend` writes a stitch (as fast as possible, through `SpliceSession`, copying content
/// packets where it can). Every method may be called from any thread.
protocol PlayerBackend: AnyObject, Sendable {
    var surface: RenderSurface { get }
    var contentDuration: MediaTime { get }
    var item: PlayerItem? { get set }
    func start()
    func shutdown()
    /// Stops the loop and finishes the output; throws the first error met.
    func close() throws
    /// Stops the loop without finishing the output (a stitch's temporary file is removed) and
    /// waits for it.
    func abandon()

    var rate: Float { get }
    func setPlaying(_ on: Bool)
    func setRate(_ r: Float)
    var playhead: MediaTime? { get }
    var contentEndedFlag: Bool { get }
    var timelineSnapshot: TimelineMap { get }
    var masterClock: AudioMasterClock? { get set }
    func wallTime(of t: MediaTime) -> Double?
    func requestSeek(to target: MediaTime, queue: DispatchQueue, completion: (@Sendable (Bool) -> Void)?)
    func addObserver(_ kind: TimeObserver.Kind, queue: DispatchQueue) -> TimeObserverToken
    func removeObserver(_ id: Int)
    func waitUntilIdle(timeout: Double) -> Bool

    func enqueueAd(_ request: AdPlayRequest)
    func stopAd()
    /// Ends the ad playing once its next frame is out.
    func endAdAfterNextFrame()
    func setAdPaused(_ paused: Bool)
    var isAdActive: Bool { get }
    func beginBreak(id: String, contentTime: MediaTime)
    func endBreak()
    func setDoubleBoxActive(_ on: Bool)
    func recordOverlappingBreak(_ b: TimelineMap.Break, packaged: PackagedBreak?)
    /// Marks a double box's ads for the output's markers (a stitch: HLS date ranges, MP4 chapters).
    func markOverlappingBreak(_ b: PackagedBreak)
    /// A stitch: the content time of the next content frame to write (held at a cue).
    var nextContentTime: MediaTime? { get }
    /// Whether content packets are copied (a smart-rendered stitch): no layer may draw on content.
    var copiesContent: Bool { get }
}

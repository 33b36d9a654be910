import Draw
import Foundation
import Media
import Threads
import Timing

/// What the viewer sees, at the output size and rate: the small compositor that the player's
/// frame loop presents into. The video layer is the content or the ad now playing; `layers` are
/// drawn over it in order; each composited frame, and the audio that plays with it, goes to every
/// attached output.
///
/// Thread use: `present…` is called by one frame loop; `attach`, `detach`, `addLayer` and `finish`
/// may be called from any thread (they take the surface's lock).
public final class RenderSurface: Sendable {
    /// The output format every frame is conformed to.
    public let format: OutputFormat
    /// The player presenting into this surface (ads shown on the surface play through it).
    public var player: Player? { state.withLock { $0.owner } }
    func setOwner(_ p: Player) { state.withLock { $0.owner = p } }
    /// The surface's state; its lock is held while a frame is composed and written to the outputs.
    private struct State {
        weak var owner: Player?
        var outputs: [SurfaceOutput] = []
        var framesOut: Int64 = 0
        var samplesOut: Int64 = 0
        var liveDrops: Int64 = 0
        var finished = false
        var scratch: [[Float]]
        /// The track and offset the audio was last read from.
        var audioSource: (track: ObjectIdentifier, offset: Int64, identity: String?)?
    }
    private let state: Locked<State>
    /// The layers drawn over the video and mixed into the audio.
    package let layers: LayerStack
    // work layers hand over while they draw (inside `state`'s lock), run by the frame loop once
    // the frame is out; under a lock of its own, which a layer may take while `state`'s is held
    private let later = Locked<[() -> Void]>([])
    /// The player's clock, asked before each video frame with the stream time it is due at: it
    /// waits until then (real time) and says whether the frame is late (left out of live
    /// outputs). nil: as fast as possible.
    var pace: ((MediaTime) -> Bool)? { get { pacing.value } set { pacing.value = newValue } }
    /// `pace`, a `LoopBound` of the loop that presents (set before it starts).
    private let pacing: LoopBound<((MediaTime) -> Bool)?>

    /// A surface of this format, with no output yet.
    public convenience init(format: OutputFormat) {
        self.init(format: format, layers: LayerStack())
    }

    /// A surface drawing `layers` (a stitch's file makes its surface with the stack it was given).
    init(format: OutputFormat, layers: LayerStack) {
        self.format = format
        self.layers = layers
        pacing = LoopBound(nil, owner: layers.owner ?? ThreadOwner(name: "whoever presents into a surface"), name: "its pace")
        state = Locked(State(scratch: Array(repeating: [], count: format.channels)))
    }

    /// Adds an output; frames presented from now on reach it.
    public func attach(_ output: SurfaceOutput) {
        state.withLock { $0.outputs.append(output) }
    }

    /// Removes an output (without finishing it).
    public func detach(_ output: SurfaceOutput) {
        state.withLock { s in s.outputs.removeAll { $0 === output } }
    }

    /// Adds a layer over the video.
    public func addLayer(_ layer: SurfaceLayer) { layers.add(layer) }
    /// Takes a layer added with `addLayer(_:)` off the surface: it draws on no further frame.
    public func removeLayer(_ layer: SurfaceLayer) { layers.remove(layer) }

    /// Video frames presented so far (the stream position in frames).
    public var presentedFrames: Int64 { state.withLock { $0.framesOut } }
    /// Audio samples per channel presented so far.
    public var presentedSamples: Int64 { state.withLock { $0.samplesOut } }
    /// Frames left out of live outputs because they were late.
    public var droppedLiveFrames: Int64 { state.withLock { $0.liveDrops } }
    /// Stream time reached: the end of the last frame presented.
    public var streamTime: MediaTime { format.time(ofFrame: presentedFrames) }

    /// Presents one video frame as the next stream frame, once `pace` says it is due (a late one
    /// is left out of live outputs).
    func presentVideo(_ frame: Frame, keyframe: Bool, isAd: Bool, sourceTime: MediaTime?) throws {
        let late = pace?(streamTime) ?? false
        try state.withLock { s throws in
            guard !s.finished else { return }
            let at = format.time(ofFrame: s.framesOut)
            let shown = try layers.compose(frame, index: s.framesOut, streamTime: at, isAd: isAd, sourceTime: sourceTime)
            if late { s.liveDrops += 1 }
            for o in s.outputs where !(late && o.isLive) {
                try o.writeVideo(shown, index: s.framesOut, keyframe: keyframe)
            }
            s.framesOut += 1
        }
    }

    /// Brings the audio up to the end of the last video frame presented, reading `track` at
    /// stream sample + `offset` (a track reads silence where its source has none).
    func presentAudio(from track: AudioTrack, offset: Int64) throws {
        try state.withLock { s throws in
            guard !s.finished else { return }
            let target = format.sampleIndex(at: format.time(ofFrame: s.framesOut))
            let count = Int(target - s.samplesOut)
            guard count > 0 else { return }
            try announce(track, offset: offset, in: &s)
            for c in 0..<s.scratch.count { s.scratch[c].removeAll(keepingCapacity: true) }
            try track.read(from: s.samplesOut + offset, count: count, into: &s.scratch)
            try layers.mix(&s.scratch, count: count, firstSample: s.samplesOut)
            for o in s.outputs { try o.writeAudio(s.scratch, count: count) }
            s.samplesOut = target
        }
    }

    /// Runs `body` on the frame loop once the frame being presented (video and audio) is out,
    /// outside the surface's lock. A layer whose callbacks must reach another thread (an app's
    /// main queue, which may itself be waiting on the surface) hands them over with this while it
    /// draws, instead of calling them inside the lock. Without a frame loop (a surface nobody
    /// presents into) the work waits for the next frame.
    package func afterPresenting(_ body: @escaping () -> Void) {
        later.withLock { $0.append(body) }
    }

    /// Hands one packet of a copied frame (smart rendering: the content's or a cached ad's own
    /// compressed picture) to the outputs that take packets, as output frame `index`; the others
    /// get nothing for it. Its frames are counted with `countCopiedFrame`, in order.
    func presentCopied(_ packet: Packet, index: Int64) throws {
        try state.withLock { s throws in
            guard !s.finished else { return }
            for case let o as PacketOutput in s.outputs { try o.writeCopied(packet, index: index) }
        }
    }

    /// Reserves, in every output that takes packets, the `count` audio packets from stream sample
    /// `start` on for packets copied from a source whose AudioSpecificConfig is `config` (smart
    /// rendering: the content's own AAC, `ContentAudioCopy`), the source being `track` read at
    /// stream sample + `offset` from the next sample presented on; false, and nothing reserved,
    /// when a layer mixes sound or an output cannot take them: the audio is then encoded as
    /// always. The samples still reach every output through `presentAudio`.
    func reserveCopiedAudio(start: Int64, count: Int, config: [UInt8], track: AudioTrack, offset: Int64) throws -> Bool {
        guard !layers.mixesAudio else { return false }
        return try state.withLock { s throws in
            guard !s.finished else { return false }
            // a run of the source's own packets is not kept again as encoded audio
            try announce(track, offset: offset, in: &s, reusable: false)
            let outputs = s.outputs.compactMap { $0 as? PacketOutput }
            guard !outputs.isEmpty else { return false }
            var taken: [PacketOutput] = []
            for o in outputs {
                guard o.reserveCopiedAudio(start: start, count: count, config: config) else {
                    for t in taken { try t.endCopiedAudio(run: start) }
                    return false
                }
                taken.append(o)
            }
            return true
        }
    }

    /// Hands the next packets of the audio run reserved from stream sample `start` to the outputs
    /// that take packets; ends the run instead when a layer that mixes sound has been added since.
    func presentCopiedAudio(_ packets: [Packet], run start: Int64) throws {
        if layers.mixesAudio { try endCopiedAudio(run: start); return }
        try state.withLock { s throws in
            guard !s.finished else { return }
            let outputs = s.outputs.compactMap { $0 as? PacketOutput }
            for (k, o) in outputs.enumerated() {
                try o.writeCopiedAudio(k == outputs.count - 1 ? packets : try packets.map { try Packet(bytes: $0.bytes) }, run: start)
            }
        }
    }

    /// Ends the audio run reserved from stream sample `start` after the packets handed over so
    /// far (the rest is encoded).
    func endCopiedAudio(run start: Int64) throws {
        try state.withLock { s throws in
            for case let o as PacketOutput in s.outputs { try o.endCopiedAudio(run: start) }
        }
    }

    /// Tells the outputs that take packets whose audio they get from the next sample on, when the
    /// track or its offset changed (a new run of audio: outputs that keep encoded audio per source
    /// learn whose it is).
    /// `reusable` false: the run is announced as not to be kept or reused (its packets are copied).
    private func announce(_ track: AudioTrack, offset: Int64, in s: inout State, reusable: Bool = true) throws {
        let identity = layers.mixesAudio ? nil : track.reusableIdentity
        guard s.audioSource.map({ $0.track != ObjectIdentifier(track) || $0.offset != offset || $0.identity != identity }) ?? true else { return }
        s.audioSource = (ObjectIdentifier(track), offset, identity)
        for case let o as PacketOutput in s.outputs {
            try o.audioSource(identity: reusable ? identity : nil, shift: -offset, from: s.samplesOut)
        }
    }

    /// Counts the next stream frame as presented by copied packets (`presentCopied`): nothing is
    /// composed for it (no layer draws on a frame that is copied).
    func countCopiedFrame() {
        state.withLock { s in
            guard !s.finished else { return }
            s.framesOut += 1
        }
    }

    /// Runs the work handed over by `afterPresenting`, in order (the frame loop, after presenting;
    /// work added meanwhile runs too).
    func runAfterPresenting() {
        while true {
            let batch = later.withLock { later in
                defer { later = [] }
                return later
            }
            if batch.isEmpty { return }
            for body in batch { body() }
        }
    }

    /// Finishes every output (flushes encoders, writes trailers, closes windows). Nothing is
    /// presented after it. Throws the first output's error; the others are still finished.
    public func finish() throws {
        let outputs = state.withLock { s -> [SurfaceOutput]? in
            guard !s.finished else { return nil }
            s.finished = true
            return s.outputs
        }
        guard let all = outputs else { return }
        var firstError: Error?
        for o in all {
            do { try o.finish() } catch { if firstError == nil { firstError = error } }
        }
        if let firstError { throw firstError }
    }
}

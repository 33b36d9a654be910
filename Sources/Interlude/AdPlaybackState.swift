import Ads
import Timing

/// Where every break and ad stands, as an immutable value (Media3's `AdPlaybackState`): each change
/// makes a new value, so the manager's decisions are pure functions of it and easy to test.
package struct AdPlaybackState: Sendable, Equatable {
    /// Where a break sits: the one cue type (`BreakCue`: pre-roll, a content time, post-roll).
    package typealias Cue = BreakCue
    /// A break's state.
    package enum BreakState: Sendable, Equatable {
        /// Not played yet: it plays when content reaches its cue.
        case scheduled
        /// Its ads are playing.
        case playing
        /// Played to its end.
        case played
        /// Will not play: passed by a seek or `playAdsAfterTime`, not started by the app (`autoPlayAdBreaks` off), or
        /// cued inside a double box.
        case skipped
        /// Could not play: no video display, or none of its ads could be prepared.
        case failed
        /// Ended early or never started because the app called `discardAdBreak()`.
        case discarded
    }
    /// An ad's state.
    package enum AdState: Sendable, Equatable {
        /// Not played yet.
        case available
        /// Playing now.
        case playing
        /// Played to its end.
        case played
        /// Skipped by the viewer, or cut short (or never started) when its break was discarded or the manager destroyed.
        case skipped
        /// Its media could not be prepared, or failed while playing.
        case failed
    }
    /// One break.
    package struct Break: Sendable, Equatable {
        /// Identifier (VMAP breakId or one made up: `preroll`, `midroll-1`, `postroll`).
        package var id: String
        /// Where it sits.
        package var cue: Cue
        /// IMA's pod index: pre-roll 0, mid-rolls 1…N, post-roll -1.
        package var podIndex: Int
        /// Its state.
        package var state: BreakState
        /// Its ads' states, in pod order.
        package var ads: [AdState]
    }

    /// Breaks in cue order.
    package private(set) var breaks: [Break]

    /// Makes a state.
    package init(breaks: [Break]) { self.breaks = breaks }

    /// Every break of `sequence` scheduled, in its play order, with its name, pod index and its
    /// pod's ads available.
    package init(sequence: BreakSequence) {
        breaks = sequence.slots.map {
            Break(id: $0.name, cue: $0.cue, podIndex: $0.podIndex, state: .scheduled, ads: Array(repeating: .available, count: $0.adCount))
        }
    }

    /// The same state with break `index` in `state`.
    package func settingBreak(_ index: Int, to state: BreakState) -> AdPlaybackState {
        var copy = self
        copy.breaks[index].state = state
        return copy
    }

    /// The same state with ad `ad` of break `index` in `state`.
    package func settingAd(_ ad: Int, ofBreak index: Int, to state: AdState) -> AdPlaybackState {
        var copy = self
        copy.breaks[index].ads[ad] = state
        return copy
    }

    /// IMA's `adCuePoints`: 0 for a pre-roll, seconds for mid-rolls, -1 for a post-roll; one per
    /// distinct cue (two breaks at one cue share their cue point, as they share their pod index).
    package var cuePoints: [Double] {
        var cues: [Cue] = []
        for b in breaks where cues.last != b.cue { cues.append(b.cue) }
        return cues.map(\.seconds)
    }

    /// The earliest scheduled mid-roll (or pre-roll, at 0) at or after content time `t`.
    package func nextCue(atOrAfter t: MediaTime) -> MediaTime? {
        breaks.compactMap { b -> MediaTime? in
            guard b.state == .scheduled else { return nil }
            switch b.cue {
            case .preroll: return .zero
            case .midroll(let c): return c >= t ? c : nil
            case .postroll: return nil
            }
        }.min()
    }

    /// The breaks due when content reaches time `t`: of the scheduled pre/mid-rolls at or before
    /// `t`, only those at the latest cue play (IMA's rule after a seek past several); the earlier
    /// ones are skipped. Returns the new state and the indices of the breaks to play, in order.
    package func reaching(_ t: MediaTime) -> (AdPlaybackState, [Int]) {
        func cueTime(_ b: Break) -> MediaTime? {
            switch b.cue { case .preroll: return .zero; case .midroll(let c): return c; case .postroll: return nil }
        }
        let due = breaks.indices.filter { breaks[$0].state == .scheduled && (cueTime(breaks[$0]).map { $0 <= t } ?? false) }
        guard let latest = due.compactMap({ cueTime(breaks[$0]) }).max() else { return (self, []) }
        var state = self
        var play: [Int] = []
        for i in due {
            if cueTime(breaks[i]) == latest { play.append(i) } else { state = state.settingBreak(i, to: .skipped) }
        }
        return (state, play)
    }

    /// Scheduled post-rolls, in order.
    package var scheduledPostrolls: [Int] {
        breaks.indices.filter { breaks[$0].state == .scheduled && breaks[$0].cue == .postroll }
    }

    /// Marks every scheduled break at or before content time `t` skipped (IMA's `playAdsAfterTime`).
    package func droppingBreaks(atOrBefore t: MediaTime) -> AdPlaybackState {
        var state = self
        for i in breaks.indices where breaks[i].state == .scheduled {
            switch breaks[i].cue {
            case .preroll: state = state.settingBreak(i, to: .skipped)
            case .midroll(let c) where c <= t: state = state.settingBreak(i, to: .skipped)
            default: break
            }
        }
        return state
    }
}

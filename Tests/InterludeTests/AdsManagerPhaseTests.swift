import Testing
@testable import Interlude

/// Issue 19, item 2: the `AdsManager`'s state machine, checked as tables without playing video.
@Suite struct AdsManagerPhaseTests {
    typealias P = AdsManagerPhase

    static func phase(life: P.Life = .initialized, start: P.Start = .waiting, ready: P.Ready = .none) -> P {
        var p = P()
        p.life = life; p.start = start; p.ready = ready
        return p
    }

    /// (phase, ad rules, picture-in-picture) → what `start()` does, and the start and ready after it.
    static let startTable: [(P, Bool, Bool, P.StartDecision, P.Start, P.Ready)] = [
        (phase(), false, false, .startResponse, .started, .none),
        (phase(start: .started), false, false, .ignore, .started, .none),
        (phase(), true, false, .ignore, .waiting, .none),                                   // ad rules: ignored
        (phase(ready: .delivering(2)), true, false, .playReadyBreak, .waiting, .startAsked(2)),
        (phase(ready: .startAsked(2)), true, false, .ignore, .waiting, .startAsked(2)),
        (phase(), false, true, .refuseInPictureInPicture, .waiting, .none),                 // IMA's 1102
        (phase(ready: .delivering(1)), true, true, .refuseInPictureInPicture, .waiting, .delivering(1)),
        (phase(), true, true, .ignore, .waiting, .none),                                     // ad rules in PiP: nothing to refuse
        (phase(life: .destroyed), false, false, .ignore, .waiting, .none),
    ]

    @Test(arguments: startTable.indices) func start(_ i: Int) {
        var (p, rules, pip, decision, start, ready) = Self.startTable[i]
        let made = p.starting(isAdRules: rules, pictureInPictureActive: pip)
        #expect(made == decision, "row \(i)")
        #expect(p.start == start && p.ready == ready, "row \(i)")
    }

    @Test func initializeRunsOnceAndNeverAfterDestroy() {
        var p = P()
        let first = p.initializing(), second = p.initializing()
        #expect(first && !second)
        var q = P()
        q.destroying()
        let late = q.initializing()
        #expect(!late && q.life == .destroyed)
    }

    @Test func aDiscardEndsTheBreakPlayingOrMeansTheNextOne() {
        var p = Self.phase()
        let idle = p.discarding()
        #expect(!idle, "no break playing: the app means the next scheduled one")
        p.beginBreak()
        #expect(p.breakRun == .playing)
        let playedOut = p.endBreak()
        #expect(!playedOut, "played out")
        p.beginBreak()
        let asked = p.discarding()
        #expect(asked)
        p.beginBreak()
        #expect(p.breakRun == .discarding, "a break beginning keeps the discard asked")
        let discarded = p.endBreak()
        #expect(discarded && p.breakRun == .none)
        p.beginBreak()
        p.destroying()
        #expect(p.breakRun == .discarding && p.life == .destroyed, "destroy ends the break playing")
    }

    @Test func contentAndAllAdsCompleteOnce() {
        var p = Self.phase()
        let c1 = p.completingContent(), c2 = p.completingContent()
        #expect(c1 && !c2)
        let a1 = p.completingAllAds(), a2 = p.completingAllAds()
        #expect(a1 && !a2)
        var q = Self.phase()
        q.destroying()
        let late = q.completingContent()
        #expect(!late, "nothing after destroy")
    }

    @Test func theBackgroundPausesAndTheForegroundResumesOnlyWhatItPaused() {
        var p = Self.phase()
        let notAway = p.enteringForeground()
        #expect(notAway == nil, "not in the background")
        let b1 = p.enteringBackground(), b2 = p.enteringBackground()
        #expect(b1 && !b2)
        let back = p.enteringForeground()
        #expect(back == false, "nothing was paused for it")
        let b3 = p.enteringBackground()
        #expect(b3)
        p.app = .backgroundPausedAd
        let resumes = p.enteringForeground()
        #expect(resumes == true && p.app == .foreground)
        p.destroying()
        let dead = p.enteringBackground()
        #expect(!dead)
    }
}

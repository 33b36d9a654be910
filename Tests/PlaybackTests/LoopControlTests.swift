import Testing
import Timing
@testable import Playback

/// Issue 19, item 2: the frame loops' control as a state machine, checked as a table without
/// decoding video: what the loop does next in each state, and what each request of the app changes.
@Suite struct LoopControlTests {
    typealias C = LoopControl

    static func control(_ intent: C.Intent = .paused, run: C.Run = .running, ad: C.Ad = .none, freeze: C.Freeze = .none,
                        box: C.Box = .off, content: C.Content = .ahead) -> C {
        var c = C()
        c.intent = intent; c.run = run; c.ad = ad; c.freeze = freeze; c.box = box; c.content = content
        return c
    }

    /// (state, commands pending, seek pending, ad queued) → work.
    static let table: [(C, Bool, Bool, Bool, C.Work)] = [
        (control(), false, false, false, .wait),
        (control(.playing), false, false, false, .content),
        (control(.playing, content: .ended), false, false, false, .wait),
        (control(.playing, box: .on), false, false, false, .content),
        (control(.playing, freeze: .frozen), false, false, false, .content),          // a frozen ad does not hold content
        (control(.playing, freeze: .frozen, box: .on), false, false, false, .wait),   // a frozen double box does
        (control(.playing), false, false, true, .ad),
        (control(content: .ended), false, false, true, .ad),                          // post-rolls after the end
        (control(.playing), false, true, true, .seek),
        (control(.playing, run: .quitting(finish: true)), false, true, true, .quit(finish: true)),
        (control(run: .quitting(finish: false)), false, false, false, .quit(finish: false)),
        (control(.playing, run: .quitting(finish: true)), true, false, false, .commands),  // commands land before the end
        (control(), true, false, true, .commands),
    ]

    @Test(arguments: table.indices) func nextWork(_ i: Int) {
        let (c, commands, seek, ad, work) = Self.table[i]
        #expect(c.nextWork(commandsPending: commands, seekPending: seek, adQueued: ad) == work, "row \(i)")
    }

    @Test func theFirstStopRequestDecidesHowTheLoopEnds() {
        var c = C()
        c.stop(finish: true)
        c.stop(finish: false)
        #expect(c.run == .quitting(finish: true))
        c.run = .exited
        c.stop(finish: true)
        #expect(c.run == .exited && c.isIdle)
    }

    @Test func onlyAPlayingAdCanBeStoppedAndTheStopIsTakenOnce() {
        var c = C()
        c.stopAd()
        #expect(c.ad == .none, "no ad: nothing to stop")
        c.startAd()
        #expect(c.ad == .playing && c.activity == .working)
        let none = c.takeAdStop()
        #expect(!none)
        c.stopAd()
        #expect(c.ad == .stopping)
        let first = c.takeAdStop(), second = c.takeAdStop()
        #expect(first && !second, "taken once")
        c.stop(finish: true)
        let quitting = c.takeAdStop()
        #expect(quitting, "a loop that quits ends the ad")
        c.freeze = .frozen
        c.endAd()
        #expect(c.ad == .none && c.freeze == .none)
    }

    @Test func playingWakesTheLoopOnlyWhileContentIsAhead() {
        var c = C()
        c.activity = .waiting
        c.setPlaying(true)
        #expect(c.intent == .playing && c.activity == .working)
        c.activity = .waiting
        c.content = .ended
        c.setPlaying(true)
        #expect(c.activity == .waiting && c.isIdle)
        c.setPlaying(false)
        #expect(c.intent == .paused)
    }

    @Test func aDoubleBoxEndLiftsTheFreeze() {
        var c = C()
        c.setPlaying(true)
        c.setBox(true)
        c.freeze = .frozen
        #expect(c.nextWork() == .wait, "a frozen double box holds content")
        c.setBox(false)
        #expect(c.box == .off && c.freeze == .none)
    }

    @Test func endAndFailureAreEachPostedOnceAndNoEndAfterAFailure() {
        #expect(EndNotice.none.postingEnd() == (true, .ended))
        #expect(EndNotice.ended.postingEnd() == (false, .ended))
        #expect(EndNotice.ended.postingFailure() == (true, .failed), "a stitch that stalls in its post-rolls fails after its end")
        #expect(EndNotice.failed.postingFailure() == (false, .failed))
        #expect(EndNotice.failed.postingEnd() == (false, .failed))
    }

    /// Issue 19, item 1: one loop for a player and a stitch; what differs is the pass, decided
    /// here as a table. (pass, error) → what the error does; then runs, segments and failed ads.
    struct Decode: Error {}
    struct Disk: Error {}
    static let errors: [(LoopPass, Error, String)] = [
        (.presenting, PresentFailure(error: Disk()), "keep Disk"),   // a window goes on when a recording fails
        (.presenting, Decode(), "end"),                              // content ends where it stops decoding
        (.stitching, PresentFailure(error: Disk()), "fail Disk"),    // the file is the one output: unwrapped
        (.stitching, Decode(), "fail Decode"),
    ]

    @Test(arguments: errors.indices) func aContentErrorDoesWhatThePassSays(_ i: Int) {
        let (pass, error, expected) = Self.errors[i]
        let got: String
        switch pass.onContentError(error) {
        case .keep(let e): got = "keep \(type(of: e))"
        case .endContent: got = "end"
        case .fail(let e): got = "fail \(type(of: e))"
        }
        #expect(got == expected, "row \(i)")
    }

    @Test func aStitchRunsFromCueToCueInSegmentsOfItsOwnAndReportsAFailedAdAsFailed() {
        #expect(LoopPass.stitching.runsToCue && LoopPass.stitching.cueEndsSegment)
        #expect(!LoopPass.presenting.runsToCue && !LoopPass.presenting.cueEndsSegment)
        #expect(LoopPass.presenting.reportsFailedAd(afterFrames: 1))
        #expect(!LoopPass.presenting.reportsFailedAd(afterFrames: 0), "no frame shown: the ad failed")
        #expect(!LoopPass.stitching.reportsFailedAd(afterFrames: 1), "a stitch does not place an ad that failed")
    }

    /// The stitch file's chapters in stream order: content chapters (the timeline's segments)
    /// merged with ad chapters; an empty ad chapter comes before the content starting where it is.
    @Test func chaptersMergeInStreamOrder() {
        func c(_ t: String, _ a: Int64, _ b: Int64) -> OutputChapter {
            OutputChapter(title: t, start: MediaTime(value: a, timescale: 1), end: MediaTime(value: b, timescale: 1))
        }
        let merged = OutputChapter.inStreamOrder([c("C1", 0, 2), c("C2", 3, 5), c("A1", 2, 3), c("A2", 5, 5), c("A3", 5, 5), c("C3", 5, 8)])
        #expect(merged.map(\.title) == ["C1", "A1", "C2", "A2", "A3", "C3"])
    }
}

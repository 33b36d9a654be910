import Foundation
import Testing
import TestSupport

/// `interlude play CONTENT --native-format F --native-break TIME=RESPONSE[@lbar]`: the native
/// layer and the break on the player's surface, written with `-o` and decoded with the ffmpeg CLI.
@Suite struct NativePlayCLITests {
    @Test func playShowsAFullFrameNativeBreakAndAnLBarOnTheSurface() async throws {
        let (dir, content) = try NativeCLITests.files(seconds: 4)
        let out = dir.appendingPathComponent("play.nut")
        let response = dir.appendingPathComponent("response.json").path
        let r = try await CLI.run(["play", content.path, "--fast", "-o", out.path, "--format", "nut",
                                   "--native-format", dir.appendingPathComponent("format.json").path,
                                   "--native-break", "1=" + response, "--native-break", "2.5=" + response + "@lbar"])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("native native-1 (full, format 10063170): stream 1.000 s – 2.960 s, 50 frames; impression at 1.000 s"), "\(r.stderr)")
        #expect(r.stderr.contains("native native-2 (lbar, format 10063170): stream 4.520 s – 5.480 s, 25 frames; impression at 4.520 s"), "\(r.stderr)")
        // 4 s of content and the 2 s break: content frames once, in order, cut at the cue frame
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 150)
        guard frames.count == 150 else { return }
        #expect(frames[0..<25].map { $0.identity?.frameIndex } == Array(0..<25))
        #expect(frames[25..<75].allSatisfy { $0.identity == nil }, "the native break covers the frame")
        #expect(frames[75..<112].map { $0.identity?.frameIndex } == Array(25..<62), "content resumes at the cue frame")
        #expect(frames[140..<150].map { $0.identity?.frameIndex } == Array(90..<100))
        let pictures = try await DecodedPictures.decode(out, pixelFormat: "rgb24")
        for n in [25, 74, 113, 137] { #expect(NativeMixedCLITests.showsBackground(pictures, n), "layout on frame \(n)") }
        for n in [24, 75, 112, 138] { #expect(!NativeMixedCLITests.showsBackground(pictures, n), "no layout on frame \(n)") }
    }

    /// Two full-frame native breaks at one cue play one after the other (the sequencer's slots at
    /// that cue, in the order given), then content resumes at the cue frame.
    @Test func twoFullFrameNativeBreaksAtOneCuePlayInTurn() async throws {
        let (dir, content) = try NativeCLITests.files(seconds: 2)
        let out = dir.appendingPathComponent("play.nut")
        let response = dir.appendingPathComponent("response.json").path
        let r = try await CLI.run(["play", content.path, "--fast", "-o", out.path, "--format", "nut",
                                   "--native-format", dir.appendingPathComponent("format.json").path,
                                   "--native-break", "1=" + response, "--native-break", "1=" + response])
        #expect(r.status == 0, "\(r.stderr)")
        #expect(r.stderr.contains("native native-1 (full, format 10063170): stream 1.000 s – 2.960 s, 50 frames; impression at 1.000 s"), "\(r.stderr)")
        #expect(r.stderr.contains("native native-2 (full, format 10063170): stream 3.000 s – 4.960 s, 50 frames; impression at 3.000 s"), "\(r.stderr)")
        // 2 s of content and two 2 s breaks at 1 s: content frames once, in order, cut at the cue frame
        let frames = try await MediaVerifier.videoFrames(out)
        #expect(frames.count == 150)
        guard frames.count == 150 else { return }
        #expect(frames[0..<25].map { $0.identity?.frameIndex } == Array(0..<25))
        #expect(frames[25..<125].allSatisfy { $0.identity == nil }, "both native breaks cover the frame")
        #expect(frames[125..<150].map { $0.identity?.frameIndex } == Array(25..<50), "content resumes at the cue frame")
    }

    @Test func badNativeOptionsOfPlayGiveOneLine() async throws {
        let (dir, content) = try NativeCLITests.files(seconds: 1)
        let response = dir.appendingPathComponent("response.json").path
        let cases: [([String], Int32, String)] = [
            (["--native-break", "1=" + response], 2, "--native-break needs --native-format FILE"),
            (["--native-format", dir.appendingPathComponent("format.json").path, "--native-break", "end=" + response], 2, "no native post-roll"),
            (["--native-format", dir.appendingPathComponent("response.json").path, "--native-break", "0.5=" + response], 1, "native format"),
        ]
        for (args, status, message) in cases {
            let out = dir.appendingPathComponent("never.nut")
            let r = try await CLI.run(["play", content.path, "--fast", "-o", out.path, "--format", "nut", "-q"] + args)
            #expect(r.status == status, "\(args): \(r.stderr)")
            #expect(r.stderr.contains(message), "\(args): \(r.stderr)")
            #expect(r.stderr.split(separator: "\n").count == 1, "\(r.stderr)")
            #expect(!FileManager.default.fileExists(atPath: out.path))
        }
    }
}

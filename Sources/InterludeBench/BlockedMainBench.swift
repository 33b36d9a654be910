import Foundation
import Interlude
import Playback
import Timing

/// `interlude-bench --blocked-main CONTENT AD1 AD2 OUTDIR`: four stitches (a pre-roll, a pod of
/// two at 1 s, a post-roll) one after another, then the same four at once on threads of their own
/// while the main thread stays blocked (it waits for them and serves no queue). Prints both wall
/// times and their ratio; exit 1 when a concurrent stitch failed or wrote other bytes than the
/// sequential one. Issue 19 asks for the ratio ≤ 0.6 on 2 cores (scripts/bench-blocked-main.sh).
enum BlockedMainBench {
    static func childMain(_ args: [String]) -> Int32 {
        guard args.count == 4 else {
            FileHandle.standardError.write("usage: interlude-bench --blocked-main CONTENT AD1 AD2 OUTDIR\n".data(using: .utf8)!)
            return 2
        }
        let (content, ad1, ad2, dir) = (args[0], args[1], args[2], args[3])
        // re-encoded: a smart-rendered stitch's encoded ads differ from run to run on contended CPUs
        @Sendable func request(_ out: String) -> StitchRequest {
            var r = StitchRequest(content: content,
                          breaks: [AdBreakRequest(id: "pre", position: .start, ads: [ad1]),
                                   AdBreakRequest(id: "mid", position: .time(MediaTime(seconds: 1)), ads: [ad2, ad1]),
                                   AdBreakRequest(id: "post", position: .end, ads: [ad2])],
                          output: out)
            r.smart = .off
            return r
        }
        try? FileManager.default.createDirectory(atPath: dir, withIntermediateDirectories: true)
        let t0 = monotonicSeconds()
        for i in 0..<4 {
            do { _ = try Stitcher(request: request("\(dir)/seq\(i).mp4")).run() } catch {
                print("sequential stitch \(i) failed: \(error)"); return 1
            }
        }
        let sequential = monotonicSeconds() - t0
        let failures = Failures()
        let group = DispatchGroup()
        let t1 = monotonicSeconds()
        for i in 0..<4 {
            group.enter()
            let t = Thread {
                do { _ = try Stitcher(request: request("\(dir)/par\(i).mp4")).run() } catch { failures.add("concurrent stitch \(i) failed: \(error)") }
                group.leave()
            }
            t.stackSize = 8 << 20
            t.start()
        }
        group.wait()   // the main thread blocked for the whole run
        let concurrent = monotonicSeconds() - t1
        for i in 0..<4 where FileManager.default.contents(atPath: "\(dir)/par\(i).mp4") != FileManager.default.contents(atPath: "\(dir)/seq0.mp4") {
            failures.add("concurrent stitch \(i) wrote other bytes than the sequential one")
        }
        print(String(format: "sequential %.2f s, concurrent (main blocked) %.2f s, ratio %.2f", sequential, concurrent, concurrent / sequential))
        for f in failures.all { print(f) }
        return failures.all.isEmpty ? 0 : 1
    }
}

private final class Failures: @unchecked Sendable {
    // @unchecked Sendable: guarded by `lock`.
    private let lock = NSLock()
    private var list: [String] = []
    func add(_ s: String) { lock.lock(); list.append(s); lock.unlock() }
    var all: [String] { lock.lock(); defer { lock.unlock() }; return list }
}

import Foundation
import Threads

/// Independent clients for what Interlude writes (`scripts/field-check.sh`, the one place that
/// knows how they are run and which of their warnings are tolerated), and the list of test
/// outputs that `make test` puts through them after the tests pass.
public enum FieldCheck {
    /// A client of `scripts/field-check.sh`. The lenient two (`ffmpeg`, `gstreamer`) read files and
    /// URLs alike; the players viewers use (`chromium`, `vlc`, `mpv`, `gstreamer3`) get a file over
    /// http from the script (`scripts/field-player.py serve`). Chromium, VLC and mpv play in real
    /// time: a 20 s VOD takes 20 s and their start.
    public enum Client: String, Sendable, CaseIterable {
        /// `ffmpeg -v error -xerror -i FILE -f null -`: prints nothing and exits 0, or fails.
        case ffmpeg
        /// GStreamer's `playbin` to fake sinks: reaches EOS with no ERROR and no warning outside the
        /// script's allowlist.
        case gstreamer = "gst"
        /// Headless Chromium's native HLS player (`scripts/field-player.py`): a `<video>` element
        /// reaches `ended` with no error event, currentTime never goes back or skips ahead, and
        /// Chromium's media log has no error and no warning outside its allowlist.
        case chromium
        /// VLC 3 at `-vv`: no warning or error line outside the script's allowlists, no HTTP 4xx/5xx.
        case vlc
        /// mpv with its log file: no error, warning or fatal line outside the script's allowlist.
        case mpv
        /// GStreamer's `playbin3` (hlsdemux2): the rules and the allowlist of `gstreamer`.
        case gstreamer3 = "gst3"
    }

    /// What a client said: clean or not, and its report (the script's lines).
    public struct Verdict: Sendable {
        /// Whether the client played the file through without a complaint.
        public var clean: Bool
        /// The script's lines about it (the client's complaints when not clean).
        public var report: String
    }

    /// Plays `url` (an MP4 or an HLS playlist: a file, or an http URL) in `client`; `timeout`
    /// seconds bound the play (the script's default: 600 s for the new players, 300 s for playbin3),
    /// past which it is not clean.
    public static func check(_ url: URL, with client: Client, timeout: Int? = nil) throws -> Verdict {
        let target = url.isFileURL ? url.path : url.absoluteString
        return try run([client.rawValue, target] + (timeout.map { [String($0)] } ?? []), limit: Double(timeout ?? 600) + 60)
    }

    /// Plays the live playlist at `url` (http) for `seconds` in `client` (`scripts/field-check.sh
    /// live-CLIENT`): ffmpeg reads that much of it, GStreamer plays until an EOS sent after that
    /// long, Chromium, VLC and mpv play that long from their start; clean when it does not complain.
    public static func playLive(_ url: String, seconds: Int, with client: Client) throws -> Verdict {
        try run(["live-" + client.rawValue, url, String(seconds)], limit: Double(seconds) + 60)   // its playing time, then a minute to stop
    }

    /// Runs `scripts/field-check.sh arguments`, killed after `limit` seconds. Started with a clean
    /// signal mask (`Child`): the script stops GStreamer with SIGINT and its players and servers
    /// with SIGTERM (`timeout`), which a child of the test runner would otherwise inherit blocked.
    static func run(_ arguments: [String], limit: Double) throws -> Verdict {
        let script = TestMedia.packageRoot.appendingPathComponent("scripts/field-check.sh").path
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("field-check-\(arguments[0])-\(UUID().uuidString.prefix(8))")
        let out = base.appendingPathExtension("out"), err = base.appendingPathExtension("err")
        defer { try? FileManager.default.removeItem(at: out); try? FileManager.default.removeItem(at: err) }
        let child = try Child.spawn("/bin/bash", [script] + arguments, stdout: out.path, stderr: err.path)
        let status = child.wait(timeout: limit)
        if status == nil { kill(child.pid, SIGKILL); _ = child.wait(timeout: 5) }
        let report = [out, err].compactMap { try? String(contentsOf: $0, encoding: .utf8) }.joined()
        return Verdict(clean: status == 0, report: report.trimmingCharacters(in: .whitespacesAndNewlines))
    }

    /// Where outputs are kept for the field check: `$FIELD_CHECK_DIR` (`make test` sets it); nil:
    /// keep nothing.
    public static var directory: URL? {
        guard let d = ProcessInfo.processInfo.environment["FIELD_CHECK_DIR"], !d.isEmpty else { return nil }
        return URL(fileURLWithPath: d, isDirectory: true)
    }

    /// Whether `url` is something a test wrote: under the temporary directory (`make test`: its
    /// TEST_TMP), not an input from Media/, ../shared/ or the generated-media cache.
    public static func isTestOutput(_ url: URL) -> Bool {
        let tmp = FileManager.default.temporaryDirectory.standardizedFileURL.resolvingSymlinksInPath().path
        let path = url.standardizedFileURL.resolvingSymlinksInPath().path
        return path.hasPrefix(tmp.hasSuffix("/") ? tmp : tmp + "/")
    }

    /// Held while a line is added to the manifest: one writer at a time (it guards the file, no value).
    private static let manifestWrites = Locked(())

    /// Keeps `url` (an MP4, or an HLS playlist or a DASH MPD with the rest of its folder) for the field check:
    /// a copy under `kept/` (not a link: a test may later rewrite or remove its own files) and a
    /// manifest line. `gstreamer`: GStreamer plays it too, not only ffmpeg (and an HLS package
    /// also playbin3, VLC and mpv, an MPD those and Chromium with Video.js: the field check's list
    /// of which players get what is in the script).
    /// Other files (raw frame streams) and everything when `directory` is nil are left alone.
    public static func keep(_ url: URL, gstreamer: Bool = false) {
        guard let directory else { return }
        let ext = url.pathExtension.lowercased()
        guard ["mp4", "m4v", "mov", "m3u8", "mpd"].contains(ext) else { return }
        let fm = FileManager.default
        let kept = directory.appendingPathComponent("kept").appendingPathComponent(UUID().uuidString)
        do {
            try fm.createDirectory(at: kept, withIntermediateDirectories: true)
            let target: URL
            if ext == "m3u8" || ext == "mpd" {
                let folder = url.deletingLastPathComponent()
                let copy = kept.appendingPathComponent(folder.lastPathComponent)
                try fm.createDirectory(at: copy, withIntermediateDirectories: false)
                for name in try fm.contentsOfDirectory(atPath: folder.path) {
                    try fm.copyItem(at: folder.appendingPathComponent(name), to: copy.appendingPathComponent(name))
                }
                target = copy.appendingPathComponent(url.lastPathComponent)
            } else {
                target = kept.appendingPathComponent(url.lastPathComponent)
                try fm.copyItem(at: url, to: target)
            }
            let line = "\(gstreamer ? "ffmpeg,gst" : "ffmpeg")\t\(target.path)\n"
            try manifestWrites.withLock { _ in
                let manifest = directory.appendingPathComponent("manifest.tsv")
                if !fm.fileExists(atPath: manifest.path) { _ = fm.createFile(atPath: manifest.path, contents: nil) }
                let handle = try FileHandle(forWritingTo: manifest)
                defer { try? handle.close() }
                try handle.seekToEnd()
                try handle.write(contentsOf: Data(line.utf8))
            }
        } catch {
            // The field check then misses this output; the test itself is not about it.
            FileHandle.standardError.write(Data("field check: could not keep \(url.path): \(error)\n".utf8))
        }
    }
}

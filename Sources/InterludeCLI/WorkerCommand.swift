// `interlude worker`: argument parsing and signals around `Serve.AdWorker`, which does the work.
import Foundation
import Playback
import Serve

let workerUsage = """
    usage: interlude worker --redis URL --store DIR [options]

    Runs ad transcode jobs from the Redis stream interlude:jobs (consumer group "workers") that
    `interlude serve --redis URL` nodes enqueue, and commits each ad rendition to the store folder
    the nodes share (temporary folder, then one rename) before acknowledging it. A job held by a
    dead worker is claimed again after the visibility timeout; a job that fails every attempt goes
    to the dead-letter stream interlude:jobs:dead with its error.

    options:
      --redis URL                redis://HOST[:PORT][/DB] or unix:///PATH (required)
      --store DIR                the store folder the serve nodes use (required)
      --consumer NAME            this worker's name in the group (default HOSTNAME-PID)
      --visibility-timeout SECS  idle time before another worker takes a job over (default 30)
      --max-attempts N           attempts before a job is dead-lettered (default 3)
      --fetch-timeout SECS       one ad media download (default 10)
      --allow-local-media DIR    read a job's local media file (a local VMAP's ad, e.g. Media/ for
                                 the demo) when it lies inside DIR once links are resolved; without
                                 it a job naming a local file fails (VAST 403)

    A job is checked as strictly as a request before it runs (its rung within 3840x2160, names
    and bit rates as a LADDER's, a segment target of 1-30 s, an http(s) media URL or a local
    document's file); one that fails is dead-lettered with its reason and never run.

    SIGINT or SIGTERM: finish the job in hand, then exit 0.
    exit status: 1 when the worker cannot start (the store folder); 2 for bad usage.
    """

/// Runs `interlude worker ARGS`; returns the exit status.
func runWorker(_ args: [String]) async -> Int32 {
    setMediaLogging(verbose: false)   // the log is one line per job, FFmpeg's own messages left out
    if args.contains("-h") || args.contains("--help") { print(workerUsage); return 0 }
    let options: AdWorker.Options
    do { options = try parseWorker(args) } catch {
        FileHandle.standardError.write(Data("interlude worker: \(error)\n".utf8))
        return 2
    }
    let worker: AdWorker
    do {
        worker = try AdWorker(options: options) { line in
            FileHandle.standardError.write(Data("interlude worker \(options.consumer): \(line)\n".utf8))
        }
    } catch {
        FileHandle.standardError.write(Data("interlude worker: \(error)\n".utf8))
        return 1
    }
    signal(SIGINT, SIG_IGN)
    signal(SIGTERM, SIG_IGN)
    for s in [SIGINT, SIGTERM] {
        let source = DispatchSource.makeSignalSource(signal: s, queue: DispatchQueue(label: "interlude.worker.signal"))
        source.setEventHandler { worker.stop() }
        source.resume()
        workerSignalSources.append(source)
    }
    await worker.run()
    return 0
}

/// Kept alive for the process's life.
nonisolated(unsafe) private var workerSignalSources: [DispatchSourceSignal] = []

/// The options of `interlude worker`.
private func parseWorker(_ args: [String]) throws -> AdWorker.Options {
    var scanner = ArgumentScanner(args)
    var redis: String?, store: String?, consumer: String?
    var visibility = 30.0, attempts = 3, fetch = 10.0
    var localMedia: URL?
    func seconds(_ v: String, _ name: String) throws -> Double {
        guard let d = Double(v), d.isFinite, d > 0, d <= 86_400 else { throw UsageError("\(name) wants seconds (0 < S <= 86400), not '\(v)'") }
        return d
    }
    while let arg = scanner.next() {
        let name = try scanner.name(of: arg)
        switch name {
        case "--redis": redis = try scanner.value(for: name, in: arg)
        case "--store": store = try scanner.value(for: name, in: arg)
        case "--consumer":
            let v = try scanner.value(for: name, in: arg)
            guard !v.isEmpty, v.count <= 64, v.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_".contains($0)) }) else {
                throw UsageError("--consumer wants letters, digits, - and _ (at most 64), not '\(v)'")
            }
            consumer = v
        case "--visibility-timeout": visibility = try seconds(try scanner.value(for: name, in: arg), name)
        case "--fetch-timeout": fetch = try seconds(try scanner.value(for: name, in: arg), name)
        case "--allow-local-media":
            let v = try scanner.value(for: name, in: arg)
            var st = stat()
            guard !v.isEmpty, stat(v, &st) == 0, st.st_mode & S_IFMT == S_IFDIR else { throw UsageError("--allow-local-media wants a folder, not '\(v)'") }
            localMedia = URL(fileURLWithPath: v, isDirectory: true)
        case "--max-attempts":
            let v = try scanner.value(for: name, in: arg)
            guard let n = Int(v), (1...100).contains(n) else { throw UsageError("--max-attempts wants 1…100, not '\(v)'") }
            attempts = n
        case "": throw UsageError("unexpected argument '\(arg)'")
        default: throw UsageError("unknown option \(name)")
        }
    }
    guard let redis else { throw UsageError("--redis URL is required") }
    guard let store, !store.isEmpty else { throw UsageError("--store DIR is required") }
    do { _ = try RedisAdQueue(url: redis) } catch { throw UsageError("\(error)") }
    let host = ProcessInfo.processInfo.hostName.filter { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }
    var o = AdWorker.Options(redisURL: redis, storeRoot: URL(fileURLWithPath: store, isDirectory: true),
                             consumer: consumer ?? "\(host.isEmpty ? "worker" : String(host.prefix(40)))-\(getpid())")
    o.visibilityTimeout = visibility
    o.maxAttempts = attempts
    o.fetchTimeout = fetch
    o.localMediaFolder = localMedia
    return o
}

import Ads
import Foundation
import Interlude
import Timing

/// A session's ad decision: one request to the ad decision server through the hardened loader
/// (size limits, timeouts, wrapper depth), its breaks planned, and every failure reduced to
/// "play content": nothing thrown. The Error URLs of what failed are fired as the stitch does
/// (each with its own VAST code).
public struct AdDecision: Sendable {
    /// The breaks to play (empty: content only).
    public var breaks: [PlannedBreak]
    /// Why breaks are missing, one line each (logged).
    public var problems: [String]
    /// Seconds the ADS took to answer (wrappers included).
    public var latency: Double
    /// Whether the request failed outright (timeout, dead server, not XML, …); with one request
    /// per avail, whether every one did.
    public var failed: Bool
    /// Each request made: how long it took and whether it failed (one per avail with origin cues).
    public var requests: [(seconds: Double, failed: Bool)] = []

    /// Requests `tag` (as `request` says: `GET`, or `POST` with headers and a body) and plans its
    /// breaks on `content`. `sender` fires the Error URLs of the schedule's errors.
    public static func decide(tag: String, request: AdHTTPRequest = .get, content: PreparedContent, timeout: Double,
                              sender: BeaconSender) async -> AdDecision {
        let a = await answer(tag: tag, request: request, content: content, timeout: timeout, sender: sender)
        var breaks: [PlannedBreak] = []
        if let schedule = a.schedule {
            fireErrors(of: schedule, sender: sender)
            let tagURL = TagLocation.rootURL(tag)
            breaks = AdPlanner.plan(schedule, contentDuration: content.duration, originCues: content.originCues,
                                    tagURL: tagURL, allowLocalMedia: tagURL?.isFileURL ?? false)
        }
        return AdDecision(breaks: breaks, problems: a.problems, latency: a.seconds, failed: a.failed, requests: [(a.seconds, a.failed)])
    }

    /// The most avails of one VOD session asked for (an origin's markers beyond are left without
    /// ads, logged): a hostile or broken origin with thousands of markers must not make every
    /// session start a request storm.
    public static let maxAvails = 64
    /// The most of one session's avail requests in flight at once.
    public static let availRequestsAtOnce = 8

    /// A VOD session's decision as MediaTailor makes it: content with ad markers (origin cues)
    /// gets one request per avail (`availRequestsAtOnce` at a time, at most `maxAvails`),
    /// `tag(i)` being the tag and request of avail `i` (1-based: `[avail.index]`), each VAST
    /// answer filling its own avail; a VMAP answer to the first places the session's breaks
    /// itself (the others are not used). Content without markers: one request, `tag(1)`.
    public static func decide(perAvail tag: (Int) -> (tag: String, request: AdHTTPRequest), content: PreparedContent,
                              timeout: Double, sender: BeaconSender) async -> AdDecision {
        let cues = content.originCues
        guard cues.count > 1 else {
            let t = tag(1)
            return await decide(tag: t.tag, request: t.request, content: content, timeout: timeout, sender: sender)
        }
        let started = monotonicSeconds()
        let tags = (1...min(cues.count, maxAvails)).map(tag)
        let answers = await withTaskGroup(of: (Int, Answer).self) { group in
            var out = [Answer?](repeating: nil, count: tags.count)
            var next = 0
            func add() {
                let i = next, t = tags[i]
                next += 1
                group.addTask { (i, await answer(tag: t.tag, request: t.request, content: content, timeout: timeout, sender: sender)) }
            }
            while next < min(tags.count, availRequestsAtOnce) { add() }
            for await (i, a) in group {
                out[i] = a
                if next < tags.count { add() }
            }
            return out.map { $0! }
        }
        let latency = monotonicSeconds() - started
        let requests = answers.map { (seconds: $0.seconds, failed: $0.failed) }
        let tagURL = TagLocation.rootURL(tags[0].tag), local = tagURL?.isFileURL ?? false
        if let first = answers[0].schedule, first.kind == .vmap {
            fireErrors(of: first, sender: sender)
            let breaks = AdPlanner.plan(first, contentDuration: content.duration, originCues: cues, tagURL: tagURL, allowLocalMedia: local)
            return AdDecision(breaks: breaks, problems: answers[0].problems, latency: latency, failed: answers[0].failed, requests: requests)
        }
        for a in answers { if let s = a.schedule, s.kind == .vast { fireErrors(of: s, sender: sender) } }
        let breaks = AdPlanner.plan(perAvail: answers.map(\.schedule), cues: cues, contentDuration: content.duration,
                                    tagURL: tagURL, allowLocalMedia: local)
        var problems = answers.enumerated().flatMap { i, a in a.problems.map { "avail \(i + 1): \($0)" } }
        if cues.count > maxAvails { problems.append("\(cues.count - maxAvails) ad markers past the first \(maxAvails) left without ads") }
        for (i, a) in answers.enumerated() where a.schedule?.kind == .vmap && i > 0 {
            problems.append("avail \(i + 1): a VMAP answer to one avail's request is not used")
        }
        return AdDecision(breaks: breaks, problems: problems, latency: latency, failed: answers.allSatisfy(\.failed), requests: requests)
    }

    /// One request's outcome: the schedule (nil when the request failed), its problems, its time.
    struct Answer: Sendable {
        var schedule: AdSchedule?
        var problems: [String]
        var seconds: Double
        var failed: Bool
    }

    /// Makes one request through the hardened loader; a failure fires its Error URLs and is an
    /// answer without a schedule.
    static func answer(tag: String, request: AdHTTPRequest, content: PreparedContent, timeout: Double, sender: BeaconSender) async -> Answer {
        let started = monotonicSeconds()
        let options = AdTagOptions(initialTimeout: timeout, wrapperTimeout: timeout, contentDuration: content.duration)
        let loader = AdTagResolver(options: options)
        do {
            let schedule = try await loader.load(tag: tag, request: request)
            var problems = schedule.errors.map { "\($0.code.map { String($0.rawValue) } ?? "900"): \($0.message)" }
            if let noFill = schedule.noFill { problems.insert("no fill (\(noFill.code)): \(noFill.message)", at: 0) }
            return Answer(schedule: schedule, problems: problems, seconds: monotonicSeconds() - started, failed: false)
        } catch let e as AdLoadError {
            var context = MacroContext()
            context.errorCode = e.code
            for url in e.errorURLs {
                sender.fire(TrackedBeacon(event: "error", streamTime: .zero, contentTime: .zero, url: MacroExpander.expand(url, context: context)))
            }
            return Answer(schedule: nil, problems: [e.description], seconds: monotonicSeconds() - started, failed: true)
        } catch {
            return Answer(schedule: nil, problems: ["\(error)"], seconds: monotonicSeconds() - started, failed: true)
        }
    }

    /// Fires the Error URL of every error of `schedule` with its code (900 for none).
    static func fireErrors(of schedule: AdSchedule, sender: BeaconSender) {
        for issue in schedule.errors {
            var context = MacroContext()
            context.errorCode = issue.code ?? .undefined
            for url in issue.errorURLs {
                sender.fire(TrackedBeacon(event: "error", streamTime: .zero, contentTime: .zero, url: MacroExpander.expand(url, context: context),
                                          adId: issue.adId, breakId: issue.breakId))
            }
        }
    }
}

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
    /// Whether the request failed outright (timeout, dead server, not XML, …).
    public var failed: Bool

    /// Requests `tag` and plans its breaks on `content`. `sender` fires the Error URLs of the
    /// schedule's errors.
    public static func decide(tag: String, content: PreparedContent, timeout: Double, sender: BeaconSender) async -> AdDecision {
        let started = monotonicSeconds()
        let options = AdLoaderOptions(initialTimeout: timeout, wrapperTimeout: timeout, contentDuration: content.duration)
        let loader = AdTagLoader(options: options)
        let tagURL = TagLocation.rootURL(tag)
        let local = tagURL?.isFileURL ?? false
        do {
            let schedule = try await loader.load(tag: tag)
            fireErrors(of: schedule, sender: sender)
            let breaks = AdPlanner.plan(schedule, contentDuration: content.duration, originCues: content.originCues,
                                        tagURL: tagURL, allowLocalMedia: local)
            var problems = schedule.errors.map { "\($0.code.map { String($0.rawValue) } ?? "900"): \($0.message)" }
            if let noFill = schedule.noFill { problems.insert("no fill (\(noFill.code)): \(noFill.message)", at: 0) }
            return AdDecision(breaks: breaks, problems: problems, latency: monotonicSeconds() - started, failed: false)
        } catch let e as AdLoadError {
            var context = MacroContext()
            context.errorCode = e.code
            for url in e.errorURLs {
                sender.fire(TrackedBeacon(event: "error", streamTime: .zero, contentTime: .zero, url: MacroExpander.expand(url, context: context)))
            }
            return AdDecision(breaks: [], problems: [e.description], latency: monotonicSeconds() - started, failed: true)
        } catch {
            return AdDecision(breaks: [], problems: ["\(error)"], latency: monotonicSeconds() - started, failed: true)
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

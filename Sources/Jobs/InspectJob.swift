// `interlude inspect` as a library call: a VAST/VMAP tag resolved into its ad schedule (text or
// JSON), a native response's assets, or a conformance table of a folder of documents.
import Ads
import Foundation
import Interlude

/// One inspection as the `inspect` command runs it, callable without a process: `tag` resolved
/// (wrappers followed, media chosen) and its schedule assembled as text or one JSON object
/// (`ScheduleReport`); an OpenRTB Native response (a `.json` tag, or a file starting with `{`)
/// listed asset by asset; or, with `conformanceDirectory`, every `.xml` under it loaded offline
/// into a table. ``run()`` never throws: the ``Outcome`` holds what goes to standard output
/// and, when it did not succeed, the one line that says why.
package struct InspectJob: Sendable {
    /// The tag: a path, or an http(s) or file URL of a VAST or VMAP document or a native response.
    package var tag: String
    /// How the tag is loaded (timeouts, redirects, sizes, media selection, network).
    package var options = AdTagOptions()
    /// One JSON object instead of text.
    package var json = false
    /// A folder of `.xml` documents to load offline into a conformance table (instead of `tag`).
    package var conformanceDirectory: String?
    /// Native format files naming a native response's assets.
    package var nativeFormats: [String] = []

    /// A job inspecting `tag`, with default options.
    package init(tag: String) { self.tag = tag }

    /// What an inspection produced.
    package struct Outcome: Sendable, Equatable {
        /// The text for standard output, exactly (with its line ends); a failure with `json`
        /// still has one JSON object here.
        package var output: String
        /// Why it did not succeed (one line), or nil; a conformance run with an unexpected row
        /// fails without one.
        package var error: String?
        /// Whether the tag resolved (even to no ads), or every conformance row was as expected.
        package var succeeded: Bool
    }

    /// Loads and assembles the report.
    package func run() async -> Outcome {
        if let dir = conformanceDirectory {
            var offline = options
            offline.allowNetwork = false
            offline.wrapperTimeout = min(offline.wrapperTimeout, 1)
            let rows = await ConformanceRunner.run(directory: dir, options: offline)
            return Outcome(output: ConformanceRunner.table(rows), error: nil, succeeded: !rows.contains(where: \.unexpected))
        }
        if InspectJob.isNativeResponse(tag) { return await runNative() }
        let loader = AdTagResolver(options: options)
        do {
            let schedule = try await loader.load(tag: tag)
            return Outcome(output: json ? ScheduleReport.json(schedule).serialized(pretty: true) + "\n" : ScheduleReport.text(schedule),
                           error: nil, succeeded: true)
        } catch {
            let load = error as? AdLoadError
            let line = load.map { "error \($0.code): \($0.message)" } ?? "\(error)"
            var output = ""
            if json {
                // A refused or unreadable document still answers with one object: no breaks, the error.
                let failure: JSONValue = .object([("code", load.map { .int($0.code.rawValue) } ?? .null),
                                                  ("message", .string(load?.message ?? "\(error)"))])
                output = JSONValue.object([("tag", .string(tag)), ("cuePoints", .array([])), ("breaks", .array([])),
                                           ("errors", .array([failure])), ("warnings", .array([]))]).serialized(pretty: true) + "\n"
            }
            return Outcome(output: output, error: line, succeeded: false)
        }
    }
}

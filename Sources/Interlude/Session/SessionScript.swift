import Foundation
import Timing

/// A viewer's session written down, so that what a viewer did can be played again: actions at a
/// content time, at a stream time, or on an ad event. Loaded from JSON:
///
/// ```json
/// {"actions": [
///   {"at": 12.5, "clock": "content", "do": "pause", "for": 2},
///   {"on": "FIRST_QUARTILE", "occurrence": 2, "do": "click"},
///   {"at": 40, "clock": "stream", "do": "skip"},
///   {"at": 15, "do": "seek", "to": 45},
///   {"at": 90, "clock": "stream", "do": "quit"}
/// ]}
/// ```
/// `clock` is `content` (the default: just before the first content frame at or after the time,
/// frame-exact) or `stream` (right after the frame that reaches that output time, content or ad).
/// `on` is an ad event type as IMA spells it; `occurrence` (default 1) picks which one.
/// Actions: `pause` (the ad if one is playing, else the content; with `for`: seconds until it
/// resumes, immediately when played as fast as possible), `resume`, `skip`, `click` (the viewer
/// clicks the ad: a click-through, or TAPPED on a paused ad), `seek` (`to` seconds of content),
/// `quit`; `pip on` / `pip off` (picture-in-picture starts or stops: the window key `p`),
/// `background on` / `background off` (the app enters or leaves the background; `background on`
/// with `for`: seconds until it returns, immediately when played as fast as possible).
package struct SessionScript: Sendable, Equatable {
    /// What sets an action off.
    public enum Trigger: Sendable, Equatable {
        /// Content reaches this time.
        case contentTime(MediaTime)
        /// The output stream reaches this time.
        case streamTime(MediaTime)
        /// The `occurrence`-th ad event of this type.
        case event(AdEventType, occurrence: Int)
    }

    /// What the viewer does.
    public enum Kind: Sendable, Equatable {
        /// Pauses the ad if one is playing, else the content; `seconds`: until it resumes (nil: until a `resume`).
        case pause(seconds: Double?)
        /// Resumes the paused ad, or the content when no ad is playing.
        case resume
        /// Skips the playing ad, when it is skippable and its skip offset has been reached.
        case skip
        /// The viewer clicks the ad: a click-through, or TAPPED (and a resume) on a paused ad.
        case click
        /// Seeks the content to this content time.
        case seek(to: MediaTime)
        /// Ends the session: the player pauses and the ads manager is destroyed.
        case quit
        /// Picture-in-picture on (true) or off.
        case pictureInPicture(Bool)
        /// The app enters (true) or leaves the background; `seconds`: until it returns.
        case background(Bool, seconds: Double?)
    }

    /// One scripted action.
    public struct Action: Sendable, Equatable {
        /// When.
        public var trigger: Trigger
        /// What.
        public var kind: Kind
        /// Makes an action.
        public init(trigger: Trigger, kind: Kind) { self.trigger = trigger; self.kind = kind }
    }

    /// The actions, in file order.
    public var actions: [Action]

    /// A script of `actions`.
    public init(actions: [Action]) { self.actions = actions }

    /// Why a script could not be read.
    public struct Invalid: Error, Sendable, CustomStringConvertible {
        /// One line.
        public var description: String
    }

    /// Reads a script from JSON (see the type's documentation).
    public static func parse(_ data: Data) throws -> SessionScript {
        guard let root = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
              let items = root["actions"] as? [[String: Any]] else {
            throw Invalid(description: "a session script is a JSON object with an \"actions\" array of objects")
        }
        var actions: [Action] = []
        for (i, item) in items.enumerated() {
            let n = i + 1
            func seconds(_ key: String) throws -> MediaTime? {
                guard let v = item[key] else { return nil }
                guard let d = (v as? NSNumber)?.doubleValue, d.isFinite, d >= 0, d < 1e7 else {
                    throw Invalid(description: "action \(n): \"\(key)\" must be a number of seconds ≥ 0")
                }
                return MediaTime(seconds: d, timescale: 1_000_000).reduced
            }
            let trigger: Trigger
            if let on = item["on"] as? String {
                guard let type = AdEventType(rawValue: on) else { throw Invalid(description: "action \(n): unknown event '\(on)'") }
                let occurrence = (item["occurrence"] as? NSNumber)?.intValue ?? 1
                guard occurrence >= 1 else { throw Invalid(description: "action \(n): \"occurrence\" must be 1 or more") }
                trigger = .event(type, occurrence: occurrence)
            } else if let at = try seconds("at") {
                switch item["clock"] as? String ?? "content" {
                case "content": trigger = .contentTime(at)
                case "stream": trigger = .streamTime(at)
                case let c: throw Invalid(description: "action \(n): \"clock\" must be content or stream, not '\(c)'")
                }
            } else {
                throw Invalid(description: "action \(n): needs \"at\" (seconds) or \"on\" (an ad event)")
            }
            let kind: Kind
            switch item["do"] as? String {
            case "pause": kind = .pause(seconds: try seconds("for")?.seconds)
            case "resume": kind = .resume
            case "skip": kind = .skip
            case "click": kind = .click
            case "quit": kind = .quit
            case "pip on": kind = .pictureInPicture(true)
            case "pip off": kind = .pictureInPicture(false)
            case "background on": kind = .background(true, seconds: try seconds("for")?.seconds)
            case "background off": kind = .background(false, seconds: nil)
            case "seek":
                guard let to = try seconds("to") else { throw Invalid(description: "action \(n): seek needs \"to\" (seconds)") }
                kind = .seek(to: to)
            case let d: throw Invalid(description: "action \(n): \"do\" must be pause, resume, skip, click, seek, quit, pip on, pip off, background on or background off, not '\(d ?? "nothing")'")
            }
            actions.append(Action(trigger: trigger, kind: kind))
        }
        return SessionScript(actions: actions)
    }
}

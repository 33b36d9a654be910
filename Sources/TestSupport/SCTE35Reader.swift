import Foundation

/// A `splice_insert` SCTE-35 section as an independent parser reads it: PyPI's `threefive`, in
/// the virtual environment `make setup` makes at `.build/pyenv`.
public struct SCTE35Reading: Sendable, Equatable {
    /// `splice_event_id`.
    public var eventID: Int
    /// `out_of_network_indicator`.
    public var outOfNetwork: Bool
    /// `pts_time` in seconds.
    public var ptsTime: Double
    /// `pts_adjustment` in seconds.
    public var ptsAdjustment: Double
    /// `break_duration` in seconds, when the section has one.
    public var breakDuration: Double?

    /// `pts_time + pts_adjustment` at 90 kHz: the PTS of the splice frame in the transport stream.
    public var splicePTS: Int64 { Int64(((ptsTime + ptsAdjustment) * 90_000).rounded()) }

    /// Decodes `hex` (`0xFC…`, as `EXT-X-DATERANGE` carries it) with threefive.
    public static func decode(_ hex: String) throws -> SCTE35Reading {
        let python = TestMedia.packageRoot.appendingPathComponent(".build/pyenv/bin/python3").path
        guard FileManager.default.isExecutableFile(atPath: python) else {
            throw VerifierError.toolNotFound("\(python) (threefive; run `make setup`)")
        }
        let program = """
            import json, sys, threefive
            cue = threefive.Cue(sys.argv[1])
            cue.decode()
            d = cue.get()
            print(json.dumps({"info": d["info_section"], "command": d["command"]}))
            """
        let out = try Tools.checked(Tools.run(python, ["-c", program, hex]))
        guard let json = try JSONSerialization.jsonObject(with: out.stdout) as? [String: Any],
              let info = json["info"] as? [String: Any], let command = json["command"] as? [String: Any],
              command["command_type"] as? Int == 5, let id = command["splice_event_id"] as? Int,
              let pts = command["pts_time"] as? Double, let adjustment = info["pts_adjustment"] as? Double else {
            throw VerifierError.malformedOutput("threefive on \(hex): \(String(decoding: out.stdout, as: UTF8.self))")
        }
        return SCTE35Reading(eventID: id, outOfNetwork: command["out_of_network_indicator"] as? Bool ?? false,
                             ptsTime: pts, ptsAdjustment: adjustment, breakDuration: command["break_duration"] as? Double)
    }
}

/// PyPI's `threefive` (in `.build/pyenv`) run on a Python program whose last line prints JSON:
/// the independent reading of SCTE-35 that tests check the production parser against.
public enum ThreeFive {
    /// Whether the virtual environment with threefive exists.
    public static var available: Bool { FileManager.default.isExecutableFile(atPath: python) }

    static var python: String { TestMedia.packageRoot.appendingPathComponent(".build/pyenv/bin/python3").path }

    /// Runs `program` with `arguments` (as `sys.argv[1...]`) and parses what it prints as JSON.
    public static func json(_ program: String, _ arguments: [String]) throws -> Any {
        guard available else { throw VerifierError.toolNotFound("\(python) (threefive; run `make setup`)") }
        let out = try Tools.checked(Tools.run(python, ["-c", program] + arguments))
        return try JSONSerialization.jsonObject(with: out.stdout)
    }

    /// Every cue threefive's `Stream` finds in the TS file at `path`: its info section, command
    /// and descriptors as threefive's `get()` gives them.
    public static func streamCues(_ path: String) throws -> [[String: Any]] {
        let program = """
            import json, sys, threefive
            out = []
            def take(cue):
                g = cue.get()
                out.append({"info": g["info_section"], "command": g["command"], "descriptors": g["descriptors"]})
            threefive.Stream(sys.argv[1]).decode(func=take)
            print(json.dumps(out))
            """
        guard let list = try json(program, [path]) as? [[String: Any]] else {
            throw VerifierError.malformedOutput("threefive on \(path)")
        }
        return list
    }

    /// One section's hex decoded by threefive's `Cue`.
    public static func cue(_ hex: String) throws -> [String: Any] {
        let program = """
            import json, sys, threefive
            cue = threefive.Cue(sys.argv[1]); cue.decode(); g = cue.get()
            print(json.dumps({"info": g["info_section"], "command": g["command"], "descriptors": g["descriptors"]}))
            """
        guard let d = try json(program, [hex]) as? [String: Any] else { throw VerifierError.malformedOutput("threefive on \(hex)") }
        return d
    }
}

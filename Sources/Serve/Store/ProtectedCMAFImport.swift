import Foundation
import Manifest
import Media
import Timing

/// Takes in an encrypted DASH origin (`ContentProtection` on its AdaptationSets: CMAF `cenc` or
/// `cbcs`) as `ProtectedCMAF` keeps it: each video Representation a rung of its segments as they
/// came (`NAME/init.enc.mp4`, `NAME/segNNNNN.enc.m4s`), the main audio Representation its
/// segments as they came (`audio/…`), the descriptors passed on. Each segment's pictures are
/// counted from its boxes (`FragmentRemux.pictures`: nothing is decrypted, no key is asked for):
/// it must start with a keyframe and follow the one before at one constant frame rate (times to
/// the nearest 90 kHz tick), and every
/// rung must start its segments at the same frames (a break goes in at a boundary, in every rung
/// at once). Refused in one line: several Periods, some video Representations clear and some
/// encrypted, or protected differently. Its other audio languages are kept as its sound is, its
/// subtitles (clear) read as a clear origin's.
enum ProtectedCMAFImport {
    /// What was fetched: each rung's segments in `folder/NAME/`, the sound's in `folder/audio/`.
    struct Fetched {
        /// Each rung (top first): its rendition, CODECS (video and audio), segment count.
        var rungs: [(rendition: Rendition, codecs: String, segments: Int)]
        var protection: [DASH.ContentProtection]
        /// The sound, its paths relative to the package (`audio/…`).
        var audio: ProtectedCMAF.Audio?
        /// Each other language, as the sound (`audio-N/…`).
        var languages: [ProtectedCMAF.Audio] = []
        /// The segments the origin's SCTE-35 events fall nearest to.
        var cueSegments: [Int]
        /// An HLS origin's keys (as its HLS sessions pass them on); nil for a DASH origin.
        var hls: ProtectedCMAF.HLSKeys? = nil
    }

    /// Whether an MPD's Periods carry encrypted media.
    static func isProtected(_ periods: [DASHImport.PeriodTracks]) -> Bool {
        periods.contains { p in p.video.contains { !$0.protection.isEmpty } || !(p.audio?.protection.isEmpty ?? true) }
    }

    /// The folder (in the package) of the sound's files.
    static let audioFolder = "audio"

    /// Fetches the protected origin `periods` into `folder`: `resolved` reads a track's index,
    /// `piece` writes its initialization segment (nil) or a media segment to a file.
    static func fetch(_ periods: [DASHImport.PeriodTracks], folder: URL, notes: inout [String],
                      resolved: (DASHImport.Track) async throws -> DASHImport.Track,
                      piece: (DASHImport.Track, Int?, URL) async throws -> Void) async throws -> Fetched {
        guard periods.count == 1, let period = periods.first else {
            throw StoreError.unsupported("DASH source: an encrypted MPD of \(periods.count) Periods (one is read)")
        }
        let protection = period.video[0].protection
        guard !protection.isEmpty, period.video.allSatisfy({ $0.protection == protection }) else {
            throw StoreError.unsupported("DASH source: video Representations encrypted differently, or some clear (all or none are read)")
        }
        func made(_ dir: URL) throws {
            try FileManager.default.createDirectory(at: dir, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        }
        // a sound as it came into `track/`: its presentation times on the video's timeline
        func sound(_ given: DASHImport.Track, into track: String, language: String?) async throws -> ProtectedCMAF.Audio {
            let a = try await resolved(given)
            let dir = folder.appendingPathComponent(track)
            try made(dir)
            let initName = a.protection.isEmpty ? "init.mp4" : "init.enc.mp4"
            try await piece(a, nil, dir.appendingPathComponent(initName))
            var segments: [ProtectedCMAF.Segment] = []
            for i in 0..<a.count {
                let name = String(format: a.protection.isEmpty ? "seg%05d.m4s" : "seg%05d.enc.m4s", i)
                try await piece(a, i, dir.appendingPathComponent(name))
                segments.append(ProtectedCMAF.Segment(path: "\(track)/\(name)", start: a.starts[i] + a.presentationTimeOffset, duration: a.durations[i]))
            }
            // the audio time at video time 0: each track's presentation time is its media time less its offset
            let v = period.video[0]
            let zero = (MediaTime(value: a.presentationTimeOffset, timescale: a.timescale) - MediaTime(value: v.presentationTimeOffset, timescale: v.timescale)).reduced
            return ProtectedCMAF.Audio(initialization: "\(track)/\(initName)", segments: segments,
                                       timescale: a.timescale, zero: [zero.value, zero.timescale], codecs: a.codecs ?? "mp4a.40.2",
                                       bandwidth: max(1000, a.bandwidth), sampleRate: a.sampleRate, channels: a.channels, language: language ?? a.language,
                                       protection: a.protection)
        }
        var audio: ProtectedCMAF.Audio?, languages: [ProtectedCMAF.Audio] = []
        if let given = period.audio {
            audio = try await sound(given, into: audioFolder, language: period.mainAudio?.language)
            if period.languages.count > HLSImport.maxLanguages { notes.append("audio languages past the first \(HLSImport.maxLanguages) besides the main one are left out") }
            for (n, l) in period.languages.prefix(HLSImport.maxLanguages).enumerated() {
                languages.append(try await sound(l.track, into: "\(audioFolder)-\(n + 1)", language: l.audio.language))
            }
        }
        var rungs: [(rendition: Rendition, codecs: String, segments: Int)] = []
        var names: [String] = []
        var starts: [MediaTime] = []
        for (k, given) in period.video.enumerated() {
            let v = try await resolved(given)
            var name = v.height > 0 ? "\(v.height)p" : "main"
            while names.contains(name) || name == audioFolder { name += "x" }
            names.append(name)
            let dir = folder.appendingPathComponent(name)
            try made(dir)
            try await piece(v, nil, dir.appendingPathComponent("init.enc.mp4"))
            // what the MPD says must be so: a protected sample entry (`encv` with its `sinf`)
            guard try Data(contentsOf: dir.appendingPathComponent("init.enc.mp4")).range(of: Data("sinf".utf8)) != nil else {
                throw StoreError.unsupported("DASH source: \(v.id.prefix(40)) has ContentProtection but its initialization segment is not encrypted (no sinf)")
            }
            for i in 0..<v.count { try await piece(v, i, dir.appendingPathComponent(String(format: "seg%05d.enc.m4s", i))) }
            if k == 0 { starts = v.starts.map { MediaTime(value: $0, timescale: v.timescale) } }
            let codecs = (v.codecs ?? "avc1.640028") + (audio.map { "," + $0.codecs } ?? "")
            rungs.append((Rendition(name: name, width: v.width, height: v.height, videoBitrate: max(1000, v.bandwidth),
                                    audioBitrate: audio?.bandwidth ?? 128_000), codecs, v.count))
        }
        // a cue goes to the segment starting nearest it (after the first: a pre-roll is not a cue)
        func distance(_ i: Int, _ t: MediaTime) -> MediaTime { starts[i] > t ? starts[i] - t : t - starts[i] }
        let cues = Set(period.cues.compactMap { t in starts.indices.min { distance($0, t) < distance($1, t) } }).filter { $0 > 0 }.sorted()
        return Fetched(rungs: rungs, protection: protection, audio: audio, languages: languages, cueSegments: cues)
    }

    /// Reads the fetched rungs' pictures (blocking) into the content's record, its paths under `storePrefix`.
    static func package(name: String, source: String, fetched: Fetched, notes: [String], folder: URL, storePrefix: String) throws -> PackagedContent {
        var rungs: [PackagedRendition] = []
        var frameRate: Rational?, frameCount: Int?
        for r in fetched.rungs {
            let dir = folder.appendingPathComponent(r.rendition.name)
            let initFile = dir.appendingPathComponent("init.enc.mp4")
            let initPath = "\(storePrefix)/\(r.rendition.name)/init.enc.mp4"
            var spans: [SegmentSpan] = []
            var run = SegmentFrameRun(source: "encrypted CMAF", rung: r.rendition.name)
            for i in 0..<r.segments {
                let file = String(format: "seg%05d.enc.m4s", i)
                let what = "encrypted CMAF: \(r.rendition.name) segment \(i)"
                let (times, keyFirst) = try FragmentRemux.pictures(initialization: initFile, segment: dir.appendingPathComponent(file), scratch: dir)
                // the store counts time in 90 kHz ticks: each picture's time to the nearest (under 6 µs
                // off; the frames must still follow one another at one period there)
                let ticks = times.map { $0.rescaled(to: 90_000, rounding: .nearest).value }
                let (frames, lo) = try run.append(ticks, keyFirst: keyFirst, index: i)
                guard (0..<(1 << 33)).contains(lo) else { throw StoreError.unsupported("\(what) starts past 26 hours") }
                spans.append(SegmentSpan(startFrame: frames.lowerBound, endFrame: frames.upperBound, path: "\(storePrefix)/\(r.rendition.name)/\(file)",
                                         encryption: SegmentEncryption(cmafInitialization: initPath, firstPTS: lo)))
            }
            let rate = Rational(90_000, run.period ?? 3000)
            let count = spans.last?.endFrame ?? 0
            if let f = frameRate, f != rate { throw StoreError.unsupported("DASH source: video Representations differ in frame rate") }
            if let c = frameCount, c != count { throw StoreError.unsupported("DASH source: video Representations differ in length (\(c) and \(count) frames)") }
            if let top = rungs.first, top.segments.map(\.startFrame) != spans.map(\.startFrame) {
                throw StoreError.unsupported("DASH source: encrypted video Representations must start their segments at the same frames")
            }
            frameRate = rate; frameCount = count
            rungs.append(PackagedRendition(rendition: r.rendition, codecs: r.codecs, copied: true, video: "", segments: spans, hlsOrigin: true, mediaAudioIndex: nil))
        }
        guard let frameRate, let frameCount, let top = rungs.first else { throw StoreError.unsupported("DASH source: no video Representation") }
        var p = PackagedContent(version: PackagedContent.version, name: name, source: source, sourceSHA256: "",
                                frameRateNumerator: frameRate.numerator, frameRateDenominator: frameRate.denominator,
                                frameCount: frameCount, originFrames: 0, audioIndex: nil, renditions: rungs,
                                originCueFrames: fetched.cueSegments.map { top.segments[$0].startFrame })
        func stored(_ given: ProtectedCMAF.Audio) -> ProtectedCMAF.Audio {
            var a = given
            a.initialization = "\(storePrefix)/\(a.initialization)"
            for i in a.segments.indices { a.segments[i].path = "\(storePrefix)/\(a.segments[i].path)" }
            return a
        }
        p.protectedCMAF = ProtectedCMAF(video: fetched.protection, audio: fetched.audio.map(stored),
                                        languages: fetched.languages.isEmpty ? nil : fetched.languages.map(stored), hls: fetched.hls)
        if !notes.isEmpty { p.notes = notes }
        return p
    }
}

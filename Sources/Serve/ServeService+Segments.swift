import Foundation
import Media
import HTTPServer
import Interlude
import Timing

extension ServeService {
    /// `GET /v1/segments/PATH`: the stored file. An ad segment's URL names its session,
    /// rendition and place (`s`, `r`, `b`, `a`, `k`, signed by `t`): in a server-reporting
    /// session its fetch fires the beacons the segment holds, each once. A bad clock shift or
    /// mark is a 400; unsigned or forged beacon parameters fire nothing.
    ///
    /// `PATH.v.m4s`, `PATH.a.m4s`, `PATH.v.mp4`, `PATH.a.mp4`: the stored segment's video or
    /// audio as a CMAF media or initialization segment (`CMAFTracks`), what DASH sessions and
    /// HLS sessions with CMAF segments list: `o` moves a media segment's timestamps as for TS
    /// (HLS's stream clock; a DASH Period keeps the stored ones); no `d`.
    func segment(_ path: String, request: HTTPRequest) -> HTTPAnswer {
        if path.hasSuffix(Self.packedAudioSuffix) { return packedAudio(String(path.dropLast(Self.packedAudioSuffix.count)), request: request) }
        let cmaf = CMAFTracks.parse(path)
        let stored = cmaf?.segment ?? path
        guard SegmentPath.isValid(stored), let file = media.file(forSegment: stored) else { return .now(.error(404, "no segment '\(path)'")) }
        let url: SegmentURL
        do { url = try SegmentURL.parse(path: stored, query: request.queryValue, signature: signature) } catch { return .now(.error(400, "\(error)")) }
        if cmaf != nil && url.marked { return .now(.error(400, "a CMAF segment has no new-stream mark: no d")) }
        // an encrypted origin's CMAF file: as it came, content only (no beacons)
        if cmaf == nil && SegmentPath.isKeptCMAF(stored) {
            guard url.shift == 0, !url.marked, url.beacon == nil else { return .now(.error(400, "an encrypted CMAF segment is sent as it came: no o, d or beacon")) }
            let type = stored.contains("/\(ProtectedCMAFImport.audioFolder)/") ? "audio/mp4" : "video/mp4"
            return .now(HTTPResponse(status: 200, headers: ["Content-Type": type], file: file))
        }
        if SegmentPath.isEncrypted(stored) && (cmaf != nil || url.shift != 0 || url.marked || !url.leadsInto.isEmpty) {
            return .now(.error(400, "an encrypted segment is sent as it came: no o, d, c or CMAF track"))
        }
        if cmaf != nil && !url.leadsInto.isEmpty { return .now(.error(400, "a CMAF segment has no continuity counters: no c")) }
        let respond: @Sendable () -> HTTPResponse = { [self] in
            cmaf.map { cmafResponse($0.part, of: stored, file: file, shift: url.shift) } ?? Self.segmentResponse(stored, file: file, url: url)
        }
        guard let b = url.beacon else { return cmaf == nil ? .now(respond()) : .later { respond() } }
        // an ad segment: its beacons claimed (each once) before it is sent
        return .later { [self] in
            var live = liveViewers.touch(b.session)
            if live == nil, let record = storedLiveRecord(b.session) { live = await adoptLiveViewer(b.session, record: record) }
            if let v = live {
                await fireLiveBeacons(v, rendition: b.rendition, avail: b.breakIndex, ad: b.ad, segment: b.segment)
            } else {
                await fireBeacons(session: b.session, rendition: b.rendition, breakIndex: b.breakIndex, adIndex: b.ad, segment: b.segment)
            }
            return respond()
        }
    }

    /// What names a stored segment's sound as a packed-audio segment (`PATH.a.aac`).
    static let packedAudioSuffix = ".a.aac"

    /// `GET /v1/segments/PATH.a.aac[?o=…]`: the sound of stored segment `PATH` as an HLS
    /// packed-audio segment (`PackedAudio`), its timestamp moved by `o` as the segment's would be:
    /// what an audio-only rendition of an MPEG-TS session lists. No `d` (400), no beacons (the
    /// video segment of the same place fires them); an encrypted segment has none (400).
    func packedAudio(_ stored: String, request: HTTPRequest) -> HTTPAnswer {
        guard SegmentPath.isValid(stored), let file = media.file(forSegment: stored) else { return .now(.error(404, "no segment '\(stored)'")) }
        let url: SegmentURL
        do { url = try SegmentURL.parse(path: stored, query: request.queryValue, signature: signature) } catch { return .now(.error(400, "\(error)")) }
        if url.marked || SegmentPath.isEncrypted(stored) { return .now(.error(400, "a packed-audio segment has no new-stream mark and no encryption")) }
        let scratch = FileManager.default.temporaryDirectory
        return .later { [self] in
            do {
                return HTTPResponse(status: 200, headers: ["Content-Type": "audio/aac"], body: try PackedAudio.segment(file, shift: url.shift, scratch: scratch))
            } catch {
                log.event("segment_failed", ["segment": stored, "part": "packed audio", "error": "\(error)"])
                return .error(404, "no sound in '\(stored)'")
            }
        }
    }

    /// The stored file at `file` as `url` asks for it: moved by its clock shift, marked as a new
    /// stream, leading into the next segment's counters.
    static func segmentResponse(_ path: String, file: URL, url: SegmentURL) -> HTTPResponse {
        if url.shift != 0 || url.marked || !url.leadsInto.isEmpty {
            // read without following a link or blocking on a FIFO (`StoreFile.read`)
            guard var data = StoreFile.read(file, maxBytes: 1 << 30) else { return .error(404, "no segment '\(path)'") }
            if url.shift != 0 { data = TSTimestamps.shifted(data, by: MediaTime(value: url.shift, timescale: 90_000)) }
            if url.marked { data = TSDiscontinuity.marked(data) }
            if !url.leadsInto.isEmpty { data.append(TSDiscontinuity.leadingInto(url.leadsInto)) }
            return HTTPResponse(status: 200, headers: ["Content-Type": "video/mp2t"], body: data)
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": "video/mp2t"], file: file)
    }

    /// Fires the beacons of segment `k` of ad `a` of break `b` not fired yet: offsets into the
    /// ad from its segments in `rendition`, its measured duration, its place in the session's
    /// timeline when it has one (the stream time reported).
    func fireBeacons(session id: String, rendition: String, breakIndex b: Int, adIndex a: Int, segment k: Int) async {
        guard let session = sessions.touch(id), session.reporting == .server, session.breaks.indices.contains(b),
              session.breaks[b].ads.indices.contains(a), session.plan.map({ $0.slots[b][a] == .play }) ?? false,
              let rung = await self.rung(session.content, named: rendition),
              case .ready(let segments, let duration) = media.ad(mediaURL: session.breaks[b].ads[a].mediaURL, rendition: rung),
              segments.indices.contains(k) else { return }
        let within = segments[..<k].reduce(MediaTime.zero) { $0 + $1.duration }
        let layout = session.timelines[rendition]?.breaks.first { $0.index == b }
        let played = layout?.ads.first { $0.ad == a }
        let planned = session.breaks[b]
        let contentTime = layout?.contentTime ?? .zero
        let due = AdBeacons.due(planned.ads[a], in: planned, duration: played?.duration ?? duration, contentTime: contentTime, serverSide: true)
            .filter { AdBeacons.holds(offset: $0.offset, event: $0.event, segmentStart: within, length: segments[k].duration, isLast: k == segments.count - 1) }
        let granted = Set(ledger.claim(due.map { "\(b)/\(a)/\($0.event)" }, session: id))
        let fresh = due.filter { granted.contains("\(b)/\(a)/\($0.event)") }
        for d in fresh {
            for url in d.urls {
                beacons.fire(TrackedBeacon(event: d.event, streamTime: (played?.start ?? .zero) + d.offset, contentTime: contentTime, url: url,
                                           adId: planned.ads[a].id, breakId: planned.id))
            }
            log.event("beacon", ["session": id, "ad": planned.ads[a].id, "beacon": d.event, "urls": d.urls.count])
        }
        metrics.beacons(fresh.reduce(0) { $0 + $1.urls.count })
    }
}

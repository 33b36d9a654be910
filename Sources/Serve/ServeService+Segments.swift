import Foundation
import HTTPServer
@_spi(Engine) import Interlude
import Timing

extension ServeService {
    /// `GET /v1/segments/PATH`: the stored file. An ad segment's URL names its session,
    /// rendition and place (`s`, `r`, `b`, `a`, `k`): in a server-reporting session its fetch
    /// fires the beacons the segment holds, each once.
    func segment(_ path: String, request: HTTPRequest) -> HTTPResponse {
        guard SegmentPath.isValid(path), let file = media.file(forSegment: path) else { return .error(404, "no segment '\(path)'") }
        if let id = request.queryValue("s"), let r = request.queryValue("r"), let b = request.queryValue("b").flatMap(Int.init),
           let a = request.queryValue("a").flatMap(Int.init), let k = request.queryValue("k").flatMap(Int.init) {
            if let v = liveViewers.touch(id) {
                fireLiveBeacons(v, rendition: r, avail: b, ad: a, segment: k)
            } else {
                fireBeacons(session: id, rendition: r, breakIndex: b, adIndex: a, segment: k)
            }
        }
        let mark = request.queryValue("d") == "1"
        var ticks: Int64 = 0
        if let o = request.queryValue("o") {
            guard let t = Int64(o), t != 0, abs(t) < (1 << 33) else { return .error(400, "bad clock shift '\(o)'") }
            ticks = t
        }
        if ticks != 0 || mark {
            guard var data = try? Data(contentsOf: file) else { return .error(404, "no segment '\(path)'") }
            if ticks != 0 { data = TSTimestamps.shifted(data, by: MediaTime(value: ticks, timescale: 90_000)) }
            if mark { data = TSDiscontinuity.marked(data) }
            return HTTPResponse(status: 200, headers: ["Content-Type": "video/mp2t"], body: data)
        }
        return HTTPResponse(status: 200, headers: ["Content-Type": "video/mp2t"], file: file)
    }

    /// Fires the beacons of segment `k` of ad `a` of break `b` not fired yet.
    func fireBeacons(session id: String, rendition: String, breakIndex b: Int, adIndex a: Int, segment k: Int) {
        guard let session = sessions.touch(id), session.reporting == .server,
              let t = session.timelines[rendition] ?? builtTimeline(session, rendition: rendition),
              let item = t.items.first(where: { $0.kind == .ad(breakIndex: b, ad: a, segment: k, count: countOf(t, b, a)) }),
              let layout = t.breaks.first(where: { $0.index == b }), let played = layout.ads.first(where: { $0.ad == a }) else { return }
        let planned = session.breaks[b]
        let due = AdBeacons.due(planned.ads[a], in: planned, duration: played.duration, contentTime: layout.contentTime, serverSide: true)
            .filter { AdBeacons.holds(offset: $0.offset, event: $0.event, segmentStart: item.offsetInAd, length: item.segment.duration,
                                      isLast: k == countOf(t, b, a) - 1) }
        let granted = Set(ledger.claim(due.map { "\(b)/\(a)/\($0.event)" }, session: id))
        let fresh = due.filter { granted.contains("\(b)/\(a)/\($0.event)") }
        for d in fresh {
            for url in d.urls {
                beacons.fire(TrackedBeacon(event: d.event, streamTime: played.start + d.offset, contentTime: layout.contentTime, url: url,
                                           adId: planned.ads[a].id, breakId: planned.id))
            }
            log.event("beacon", ["session": id, "ad": planned.ads[a].id, "beacon": d.event, "urls": d.urls.count])
        }
        metrics.beacons(fresh.reduce(0) { $0 + $1.urls.count })
    }

    /// The timeline of a session this node has not built (its playlist came from another
    /// node): built now, kept once nothing in it is pending.
    private func builtTimeline(_ session: ServeSession, rendition: String) -> SessionTimeline? {
        guard case .success(let t) = timeline(session, rendition: rendition) else { return nil }
        if !t.hasPending { sessions.update(session.id) { s in if s.timelines[rendition] == nil { s.timelines[rendition] = t } } }
        return t
    }

    private func countOf(_ t: SessionTimeline, _ b: Int, _ a: Int) -> Int {
        for item in t.items { if case .ad(b, a, _, let n) = item.kind { return n } }
        return 0
    }
}

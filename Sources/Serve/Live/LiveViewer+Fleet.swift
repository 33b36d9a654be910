import Foundation
import Timing

extension LiveViewer {
    /// What the viewer has decided and published, as a record.
    var state: State {
        State(tracks: tracks, avails: avails, joinEdge: joinEdge, originPTS: originPTS, prerollAvail: prerollAvail, fired: fired.sorted())
    }

    /// The viewer's record for the fleet at `version`.
    func record(version: Int) -> LiveViewerRecord {
        LiveViewerRecord(version: version, id: id, channel: channelName, reporting: reporting.rawValue, startPTS: startPTS,
                         programDate: programDate.timeIntervalSinceReferenceDate, playerParams: context.playerParams,
                         userAgent: context.userAgent, state: state)
    }

    /// Takes on what another node decided and published for this viewer.
    func restore(_ r: LiveViewerRecord) {
        let s = r.state
        tracks = s.tracks.filter { key, _ in rung(named: key)?.key == key }
        avails = s.avails
        availByBreak = [:]
        for (i, a) in avails.enumerated() where i != s.prerollAvail { availByBreak[a.breakID] = i }
        joinEdge = s.joinEdge
        originPTS = s.originPTS
        prerollAvail = s.prerollAvail
        fired = Set(s.fired)
        version = r.version
    }

    /// Runs `body` on the viewer's latest state, one change at a time across the fleet: on this
    /// node one call at a time (a turn); with a `LiveViewerStore`, under the viewer's lock, after
    /// reading the record again when another node changed it since, and (`saving`) writing it
    /// back after. Nil when the viewer is gone: its record expired in the store (the session's
    /// idle timeout), which every node then answers as no session. When the store cannot be
    /// reached the viewer goes on from what this node holds.
    func shared<T>(saving: Bool, _ body: () async -> T) async -> T? {
        await takeTurn()
        defer { endTurn() }
        guard let store = context.store else { return await body() }
        let token = await store.lock(id)
        defer { if let token { store.unlock(id, token: token) } }
        do {
            if let data = try store.load(id) {
                // decoded only when another node changed the viewer since this node's copy
                if (LiveViewerRecord.version(of: data) ?? .max) > version {
                    guard let r = LiveViewerRecord.decode(data, id: id), r.channel == channelName else {
                        logFleet("live_record_refused", "the stored record is not this viewer's")
                        return await body()
                    }
                    restore(r)
                }
            } else if version > 0 {
                gone = true
                return nil
            }
        } catch {
            logFleet("live_record_unreachable", "\(error)")
            return await body()
        }
        let out = await body()
        if saving, token != nil {
            let next = record(version: version + 1)
            do {
                try store.save(id, try next.encoded())
                version = next.version
            } catch {
                logFleet("live_record_unsaved", "\(error)")
            }
        }
        return out
    }

    /// Writes the viewer's first record (a new session): false when the store does not take it
    /// (`shared` counts a version only once the store has taken the record).
    func share() async -> Bool {
        guard context.store != nil else { return true }
        _ = await shared(saving: true) {}
        return version > 0
    }

    /// Whether the viewer's record expired in the store: the session is over on every node.
    var isGone: Bool { gone }

    private func takeTurn() async {
        if !inTurn { inTurn = true; return }
        await withCheckedContinuation { turns.append($0) }
    }

    private func endTurn() {
        if turns.isEmpty { inTurn = false } else { turns.removeFirst().resume() }
    }

    private func logFleet(_ event: String, _ error: String) {
        context.log?.event(event, ["session": id, "error": error])
    }
}

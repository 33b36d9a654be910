import HTTPServer

extension ServeService {
    /// The header every answer carries (`answered`): any origin may read what it is given (a
    /// web player on its own site: video.js, dash.js, hls.js fetch playlists, MPDs and
    /// segments with XHR), as MediaTailor answers.
    static let allowOrigin = (name: "Access-Control-Allow-Origin", value: "*")

    /// A playlist's text as a session keeps it: its answer (status 200, `contentType`, the
    /// header every answer carries), made once and queued as it is for every later request
    /// (`PreparedResponse`); nil when there is no memory for it.
    static func keep(_ text: String, contentType: String) -> PreparedResponse? {
        try? PreparedResponse(text: text, contentType: contentType, headers: [allowOrigin.name: allowOrigin.value])
    }

    /// The answer session `id` keeps under `key`, read in place, or the session to write it
    /// from; nil when there is no such session.
    func kept(_ id: String, _ key: String) -> KeptLookup? {
        sessions.touch(id) { s in s.playlists[key].map(KeptLookup.answer) ?? .toWrite(s) }
    }

    /// What a session has under a playlist's key (`kept(_:_:)`).
    enum KeptLookup {
        /// The playlist's answer, kept.
        case answer(PreparedResponse)
        /// None yet: the session, to write it from.
        case toWrite(ServeSession)
    }

    /// The answer when a session's playlist cannot be kept (no memory for it).
    static var notKept: HTTPResponse { .error(503, "the session's playlists cannot be kept now") }
}

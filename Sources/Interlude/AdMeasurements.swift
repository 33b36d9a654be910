import Playback

/// Ad media opened and measured once per output, however often it plays: what every
/// `AdVideoDisplay` answers `prepareAd(mediaPath:)` with.
struct AdMeasurements {
    private var measured: [String: Result<AdMedia, AdError>] = [:]
    private let threads: Int

    /// Measurements with `threads` decoder threads.
    init(threads: Int) { self.threads = threads }

    /// The media at `path`, measured (the first time) by `AdMediaProbe`, or its VAST error.
    mutating func measure(_ path: String) throws(AdError) -> AdMedia {
        if let known = measured[path] { return try known.get() }
        let result: Result<AdMedia, AdError>
        do {
            result = .success(try AdMediaProbe.measure(path, threads: threads))
        } catch let r as AdMediaProbe.Rejection {
            result = .failure(AdError(type: .adPlayingFailed, code: r.code, message: r.message))
        } catch {
            result = .failure(AdError(type: .adPlayingFailed, code: 405, message: "ad media \(path): \(error)"))
        }
        measured[path] = result
        return try result.get()
    }
}

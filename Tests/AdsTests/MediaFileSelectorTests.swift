// Media-file selection as a table: inputs, preferences, expected choice or 403.
import Ads
import Testing

private func mf(_ name: String, _ type: String?, _ w: Int?, _ h: Int?, _ kbps: Int?, delivery: String? = "progressive",
                api: String? = nil, codec: String? = nil) -> MediaFile {
    MediaFile(url: URLTemplate("https://cdn.example.com/\(name)"), delivery: delivery, type: type, width: w, height: h,
              codec: codec, bitrate: kbps, apiFramework: api)
}

private let renditions = [
    mf("vpaid.js", "application/javascript", 640, 360, nil, api: "VPAID"),
    mf("low.mp4", "video/mp4", 640, 360, 600),
    mf("hd.webm", "video/webm", 1280, 720, 2200),
    mf("hd.mp4", "video/mp4", 1280, 720, 2000),
    mf("mid.mp4", "video/mp4", 854, 480, 1000),
    mf("hls.m3u8", "application/x-mpegurl", 1280, 720, nil, delivery: "streaming"),
    mf("old.flv", "video/x-flv", 1280, 720, 3000),
    mf("hevc.mp4", "video/mp4", 1920, 1080, 4000, codec: "hvc1.1.6.L93"),
]

@Suite struct MediaFileSelectorTests {
    @Test(arguments: [
        (MediaSelectionPreferences(), "hd.mp4"),                                          // MP4, H.264, highest bitrate
        (MediaSelectionPreferences(targetBitrate: 1200), "mid.mp4"),                      // highest at or below target
        (MediaSelectionPreferences(targetBitrate: 100), "low.mp4"),                       // none below: lowest above
        (MediaSelectionPreferences(outputWidth: 640, outputHeight: 360), "low.mp4"),      // closest size
        (MediaSelectionPreferences(outputWidth: 1920, outputHeight: 1080), "hd.mp4"),     // H.264 before HEVC
        (MediaSelectionPreferences(mimeTypes: ["video/webm"]), "hd.webm"),
        (MediaSelectionPreferences(mimeTypes: ["application/x-mpegurl"]), "hls.m3u8"),
        (MediaSelectionPreferences(mimeTypes: ["video/x-flv", "video/mp4"]), "hd.mp4"),  // MP4 still first
    ])
    func choices(_ prefs: MediaSelectionPreferences, _ expected: String) {
        let s = MediaFileSelector.select(mediaFiles: renditions, preferences: prefs)
        #expect(s.chosen?.url.template == "https://cdn.example.com/\(expected)")
        #expect(s.errorCode == nil && !s.reason.isEmpty)
    }

    @Test func skippedFilesAreExplained() {
        let s = MediaFileSelector.select(mediaFiles: renditions, preferences: MediaSelectionPreferences())
        #expect(s.rejected.map(\.url.template).sorted() == ["https://cdn.example.com/old.flv", "https://cdn.example.com/vpaid.js"])
        #expect(s.rejected.contains { $0.reason.contains("vpaid") })
        #expect(s.rejected.contains { $0.reason.contains("video/x-flv") })
    }

    @Test func nothingUsableIs403() {
        let s = MediaFileSelector.select(mediaFiles: [renditions[0], renditions[6]], preferences: MediaSelectionPreferences())
        #expect(s.chosen == nil && s.errorCode == .noSupportedMediaFile && s.reason.contains("none of 2"))
        #expect(MediaFileSelector.select(mediaFiles: []).errorCode == .noSupportedMediaFile)
    }

    @Test func mezzanineWhenPresentAndWanted() {
        let mezz = MediaFile(url: "https://cdn.example.com/master.mov", type: "video/quicktime", width: 1920, height: 1080, isMezzanine: true)
        let yes = MediaFileSelector.select(mediaFiles: renditions, mezzanines: [mezz])
        #expect(yes.chosen?.isMezzanine == true && yes.reason.hasPrefix("mezzanine"))
        let no = MediaFileSelector.select(mediaFiles: renditions, mezzanines: [mezz], preferences: MediaSelectionPreferences(preferMezzanine: false))
        #expect(no.chosen?.url.template == "https://cdn.example.com/hd.mp4")
    }

    @Test func missingTypeIsInferredFromTheURL() {
        let s = MediaFileSelector.select(mediaFiles: [mf("clip.mp4?x=1", nil, 640, 360, 500), mf("blob", nil, 1280, 720, 900)])
        #expect(s.chosen?.url.template == "https://cdn.example.com/clip.mp4?x=1")
        #expect(s.rejected.first?.reason == "unknown MIME type")
    }
}

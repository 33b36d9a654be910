// libFuzzer entry for the VAST/VMAP parser: compiled together with Sources/Ads by scripts/fuzz.sh.
// Every input goes through the size/DTD guard, the XML tree parser, the VAST/VMAP parsers, media
// selection, offset resolution, cue placement and macro expansion. Any trap is a finding.
import Foundation
import Timing

@_cdecl("LLVMFuzzerTestOneInput")
public func adsFuzzTestOneInput(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    let context = MacroContext(errorCode: .undefined, contentPlayhead: MediaTime(seconds: 12), timestamp: Date(timeIntervalSince1970: 0),
                               cacheBusting: 1)
    switch AdResponseParser(maxBytes: 1 << 20).parse(data) {
    case .failure:
        break
    case .success(.vast(let doc)):
        exercise(doc, context: context)
    case .success(.vmap(let vmap)):
        for b in vmap.breaks {
            if let offset = b.timeOffset { _ = CueScheduler.place(offset, contentDuration: MediaTime(seconds: 600)) }
            for t in b.trackingEvents { _ = MacroExpander.expand(t.url, context: context) }
            if case .vastAdData(let doc)? = b.adSource?.content { exercise(doc, context: context) }
        }
    }
    return 0
}

private func exercise(_ doc: VASTDocument, context: MacroContext) {
    _ = doc.podAds
    for ad in doc.ads {
        let creatives = ad.inline?.creatives ?? ad.wrapper?.creatives ?? []
        for linear in creatives.compactMap(\.linear) {
            _ = MediaFileSelector.select(mediaFiles: linear.mediaFiles, mezzanines: linear.mezzanines,
                                         preferences: MediaSelectionPreferences(outputWidth: 1280, outputHeight: 720, targetBitrate: 1500))
            _ = linear.skipOffset?.resolved(duration: linear.duration)
            for t in linear.trackingEvents {
                _ = t.offset?.resolved(duration: linear.duration)
                _ = MacroExpander.expand(t.url, context: context)
            }
        }
        if let tag = ad.wrapper?.vastAdTagURI { _ = TagLocation.resolve(tag.template, base: URL(string: "https://ads.example.com/")) }
        for e in ad.inline?.extensions ?? [] { _ = e.uiHideable }
    }
}

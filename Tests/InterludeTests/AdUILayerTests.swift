import Draw
import Foundation
import Media
import Playback
import Testing
import Timing
@testable import Interlude

/// The ad UI layer on real frames: visible on ad frames only, sprites rebuilt only when the text
/// changes, the renderer chosen by `isUiDisabled`, hit areas where the buttons are drawn.
@Suite struct AdUILayerTests {
    static func shown(uiDisabled: Bool = false) -> ShownAd {
        ShownAd(ad: AdUIRendererTests.ad(position: 1, total: 2, skip: 1, uiDisabled: uiDisabled), duration: MediaTime(value: 3, timescale: 1),
                skipOffset: MediaTime(value: 1, timescale: 1), clickThrough: "https://example.com/", podDuration: MediaTime(value: 5, timescale: 1))
    }

    static func compose(_ stack: LayerStack, _ frame: Frame, k: Int64, isAd: Bool = true) throws -> Frame {
        try stack.compose(frame, index: k, streamTime: MediaTime(value: k, timescale: 25), isAd: isAd, sourceTime: MediaTime(value: k, timescale: 25))
    }

    @Test func drawsOnAdFramesOnlyAndRebuildsOnlyWhenTheTextChanges() throws {
        let layer = try AdUILayer()
        layer.shown = Self.shown()
        let stack = LayerStack()
        stack.add(layer)
        let frame = try Frame.solidYUV420(width: 640, height: 360, y: 60, u: 128, v: 128)
        #expect(try Self.compose(stack, frame, k: 3, isAd: false) === frame, "content frames pass untouched")
        #expect(layer.rebuilds == 0)
        for k in Int64(0)..<25 { #expect(try Self.compose(stack, frame, k: k) !== frame) }
        #expect(layer.rebuilds == 1, "\"Ad 1 of 2 · 0:03\" and \"Skip in 1\" on frames 0-24: built once")
        for k in Int64(25)..<50 { _ = try Self.compose(stack, frame, k: k) }
        #expect(layer.rebuilds == 2, "countdown 0:02 and \"Skip ad\" from frame 25 together")
        layer.shown = nil
        #expect(try Self.compose(stack, frame, k: 60) === frame, "between ads nothing is drawn")
    }

    @Test func hitAreasAreWhereTheButtonsAre() throws {
        let layer = try AdUILayer()
        layer.shown = Self.shown()
        let stack = LayerStack()
        stack.add(layer)
        let frame = try Frame.solidYUV420(width: 640, height: 360, y: 60, u: 128, v: 128)
        _ = try Self.compose(stack, frame, k: 10)
        #expect(layer.hitAreas.map(\.action) == [.learnMore], "no skip hit area before the offset")
        _ = try Self.compose(stack, frame, k: 30)
        let areas = layer.hitAreas
        #expect(areas.map(\.action) == [.learnMore, .skip])
        let skip = areas[1].rect
        #expect(skip.x + skip.width <= 640 && skip.x > 400 && skip.y > 240, "bottom right: \(skip)")
        #expect(layer.action(atX: skip.x + skip.width / 2, y: skip.y + skip.height / 2) == .skip)
        #expect(layer.action(atX: 320, y: 100) == nil)
        layer.shown = nil
        #expect(layer.hitAreas.isEmpty)
    }

    final class Marker: AdUIRenderer {
        func elements(for c: AdUIContext) -> [AdUIElement] { [.box(Draw.PixelRect(x: 0, y: 0, width: 64, height: 64), color: .white)] }
    }

    @Test func theCustomRendererDrawsOnlyAdsWithUiDisabled() throws {
        let layer = try AdUILayer(defaultUI: nil, customUI: Marker())
        let stack = LayerStack()
        stack.add(layer)
        let frame = try Frame.solidYUV420(width: 320, height: 180, y: 60, u: 128, v: 128)
        layer.shown = Self.shown(uiDisabled: false)
        #expect(try Self.compose(stack, frame, k: 1) === frame, "no default UI asked for")
        layer.shown = Self.shown(uiDisabled: true)
        let drawn = try Self.compose(stack, frame, k: 1)
        #expect(drawn !== frame)
        let luma = drawn.withYUV420Planes { p in (p[0].base[10 * p[0].stride + 10], p[0].base[100 * p[0].stride + 100]) }
        #expect(luma?.0 == 235 && luma?.1 == 60)
    }
}

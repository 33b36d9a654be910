import Ads
import Foundation
import Interlude
import Testing

/// Format files and templates: what is read, one-line errors for bad ones, VMAP native breaks.
@MainActor @Suite struct NativeTemplateTests {
    func templateError(_ template: String, key: String = "template") -> String? {
        let file = "{\"formatID\": \"1\", \"assets\": [{\"name\": \"A\", \"id\": 1}], \"\(key)\": \(template)}"
        do { _ = try NativeFormatFile.parse(Data(file.utf8)); return nil } catch { return error.message }
    }

    @Test func badTemplatesGetOneLineErrors() {
        #expect(templateError("[]") == "native format 1: template must be an object")
        #expect(templateError(#"{"height": 180, "views": []}"#) == "native format 1: template.width is missing")
        #expect(templateError(#"{"width": 8, "height": 180, "views": []}"#) == "native format 1: template.width must be an integer from 16 to 7680")
        #expect(templateError(#"{"width": 320, "height": 180}"#) == "native format 1: template.views must be an array of at most 64 views")
        #expect(templateError(#"{"width": 320, "height": 180, "views": [{"name": "A", "kind": "video", "x": 0, "y": 0, "width": 10, "height": 10}]}"#)
                == "native format 1: template.views[0].kind must be one of text, image, media, content, box, not 'video'")
        #expect(templateError(#"{"width": 320, "height": 180, "views": [{"name": "A", "x": 300, "y": 0, "width": 40, "height": 10}]}"#)
                == "native format 1: template.views[0] lies outside the 320x180 design")
        #expect(templateError(#"{"width": 320, "height": 180, "views": [{"name": "A", "x": "0", "y": 0, "width": 4, "height": 4}]}"#)
                == "native format 1: template.views[0].x must be an integer from 0 to 319")
        #expect(templateError(#"{"width": 320, "height": 180, "background": "blue", "views": []}"#)
                == "native format 1: template.background must be a colour #RRGGBB or #RRGGBBAA")
        #expect(templateError(#"{"width": 320, "height": 180, "duration": -1, "views": []}"#) == "native format 1: template.duration must be seconds from 0 to 300")
        #expect(templateError(#"{"width": 320, "height": 180, "views": [{"name": "A", "x": 0, "y": 0, "width": 4, "height": 4}]}"#, key: "lbar")
                == "native format 1: lbar has no view of kind content")
    }

    @Test func aTemplateBecomesNamedViewsAndASnapshotScaledToTheOutput() throws {
        let file = """
            {"formatID": "1", "assets": [{"name": "Headline", "id": 1}],
             "template": {"width": 320, "height": 180, "background": "#102030", "duration": 2.5,
               "views": [{"name": "Headline", "kind": "text", "x": 11, "y": 21, "width": 101, "height": 31, "size": 18, "color": "#FF0000", "bold": true},
                         {"name": "Box", "kind": "box", "x": 0, "y": 170, "width": 320, "height": 10, "color": "#FFCC00"}]}}
            """
        let f = try NativeFormatFile.parse(Data(file.utf8))
        let t = try #require(f.fullFrame)
        #expect(t.duration == MediaTime(value: 2500, timescale: 1000))
        #expect(f.lBar == nil)
        let root = t.makeView()
        let label = try #require(root.view(named: "Headline") as? NativeLabel)
        #expect(label.fontSize == 18 && label.isBold && label.textColor == DrawColor(hex: "#FF0000"))
        label.text = "Hi"
        let snap = NativeLayoutSnapshot(root)
        #expect(snap.ops.count == 3)   // background, text, box
        // design 320x180 → output 640x360: doubled, on even coordinates
        #expect(snap.scale(Draw.PixelRect(x: 11, y: 21, width: 101, height: 31), toWidth: 640, height: 360) == Draw.PixelRect(x: 22, y: 42, width: 202, height: 62))
        label.isHidden = true
        #expect(NativeLayoutSnapshot(root).ops.count == 2)
    }

    @Test func vmapNativeBreaksFailOneByOne() throws {
        let good = #"{"native": {"assets": [{"id": 1, "title": {"text": "A"}}], "link": {"url": "https://x.example"}}}"#
        let vmap = """
            <vmap:VMAP xmlns:vmap="http://www.iab.net/videosuite/vmap" version="1.0">
            <vmap:AdBreak timeOffset="00:00:05.000" breakType="linear" breakId="a"><vmap:AdSource><vmap:CustomAdData templateType="openrtb-native"><![CDATA[\(good)]]></vmap:CustomAdData></vmap:AdSource></vmap:AdBreak>
            <vmap:AdBreak timeOffset="00:00:06.000" breakType="nonlinear" breakId="b"><vmap:AdSource><vmap:CustomAdData templateType="openrtb-native"><![CDATA[{"native": []}]]></vmap:CustomAdData></vmap:AdSource></vmap:AdBreak>
            <vmap:AdBreak timeOffset="50%" breakType="linear" breakId="c"><vmap:AdSource><vmap:CustomAdData templateType="openrtb-native"><![CDATA[\(good)]]></vmap:CustomAdData></vmap:AdSource></vmap:AdBreak>
            <vmap:AdBreak timeOffset="end" breakType="linear" breakId="d"><vmap:AdSource><vmap:AdTagURI><![CDATA[https://ads.example/vast.xml]]></vmap:AdTagURI></vmap:AdSource></vmap:AdBreak>
            </vmap:VMAP>
            """
        guard case .success(.vmap(let doc)) = AdResponseParser().parse(Data(vmap.utf8)) else { Issue.record("not a VMAP"); return }
        let (found, others) = NativeVMAP.breaks(in: doc)
        #expect(others == 1)
        #expect(found.map(\.breakId) == ["a", "b", "c"])
        #expect(try found[0].position.get() == .time(MediaTime(seconds: 5)) && found[0].layout == .fullFrame)
        #expect(try found[0].response.get().asset(id: 1)?.text == "A")
        #expect(found[1].layout == .lBar)
        #expect(throws: NativeAdError.self) { try found[1].response.get() }
        if case .failure(let e) = found[1].response { #expect(e.message == "VMAP break b: CustomAdData: native must be an object") }
        if case .failure(let e) = found[2].position { #expect(e.message == "VMAP break c: a native break needs timeOffset start, end or a time, not 50%") } else { Issue.record("50% accepted") }
    }
}

// The XML tree parser: well-formedness, text handling, and refusal of hostile input.
import Ads
import Foundation
import Testing

@Suite struct XMLTreeParserTests {
    func parse(_ s: String) throws(XMLTreeError) -> XMLDocumentTree { try XMLTreeParser().parse(Data(s.utf8)) }

    @Test func textCDATAEntitiesAndComments() throws {
        let t = try parse("\u{FEFF}<?xml version=\"1.0\"?><!-- c --><a x='1 &amp; 2'> <![CDATA[ http://e.com/?a=1&b=[X] ]]]]><![CDATA[> ]]> &lt;&#65;&#x42; <!-- inner --></a>")
        #expect(t.root.name == "a" && t.root.attribute("x") == "1 & 2")
        #expect(t.root.trimmedText == "http://e.com/?a=1&b=[X] ]]>  <AB")
    }

    @Test func prefixesAreStrippedAndUndeclaredOnesTolerated() throws {
        let t = try parse(#"<vmap:VMAP version="1.0"><vmap:AdBreak xsi:type="x" timeOffset="start"><AdTagURI>u</AdTagURI></vmap:AdBreak></vmap:VMAP>"#)
        #expect(t.root.name == "VMAP" && t.root.qualifiedName == "vmap:VMAP")
        #expect(t.root.child("AdBreak")?.attribute("type") == "x")
        #expect(t.root.child("AdBreak")?.childText("AdTagURI") == "u")
    }

    @Test func rawXMLIsSliced() throws {
        let src = #"<r><Extension type="t"><a b="1">x</a></Extension></r>"#
        let t = try parse(src)
        let e = try #require(t.root.child("Extension"))
        #expect(t.outerXML(e) == #"<Extension type="t"><a b="1">x</a></Extension>"#)
        #expect(t.innerXML(e) == #"<a b="1">x</a>"#)
    }

    @Test(arguments: [
        "<a><b></a>", "<a>", "<a></b>", "text<a/>", "<a/><b/>", "<a x=1/>", "<a x='1' x='2'/>", "<a>&bogus;</a>",
        "<a>& b</a>", "<a><![CDATA[x</a>", "<a><!-- x</a>", "", "   ", "{ vast: null }", "<a x='<'/>",
    ])
    func malformedInputIsRejected(_ s: String) {
        #expect(throws: XMLTreeError.self) { try parse(s) }
    }

    @Test func errorsCarryTheLine() {
        #expect { try parse("<a>\n<b>\n</c></a>") } throws: { ($0 as? XMLTreeError)?.line == 3 }
    }

    @Test func dtdsAndEntityDeclarationsAreRefused() {
        for s in ["<!DOCTYPE a SYSTEM \"file:///etc/passwd\"><a/>", "<a><!ENTITY x \"y\"></a>", "<!doctype a><a/>",
                  "<a><!ELEMENT a ANY></a>"] {
            #expect { try parse(s) } throws: { ($0 as? XMLTreeError)?.isSecurityRejection == true }
        }
    }

    @Test func sizeAndDepthAreCapped() {
        let small = XMLTreeParser(maxBytes: 64)
        #expect { try small.parse(Data(("<a>" + String(repeating: "x", count: 100) + "</a>").utf8)) } throws: {
            ($0 as? XMLTreeError)?.isSecurityRejection == true
        }
        let deep = String(repeating: "<a>", count: 10_000) + String(repeating: "</a>", count: 10_000)
        #expect { try parse(deep) } throws: { ($0 as? XMLTreeError)?.isSecurityRejection == true }
    }
}

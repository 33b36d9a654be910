// Issue 13, item 3 and 6 at the XML reader: linear attribute handling, UTF-16 and declared
// encodings, and DOCTYPE refused only as markup (not inside CDATA or comments).
import Ads
import Foundation
import Testing
#if canImport(Glibc)
import Glibc
#endif

@Suite struct XMLHardeningTests {
    /// CPU seconds of the calling thread (immune to other tests running beside it).
    func threadCPUSeconds() -> Double {
        var ts = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts)
        return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
    }

    @Test func manyAttributesCostLinearTime() throws {
        // 180 000 attributes on one element took 28 s of CPU with a quadratic duplicate check.
        var doc = "<VAST version=\"4.2\"><Ad"
        doc.reserveCapacity(3_000_000)
        for i in 0..<180_000 { doc += " a\(i)=\"\"" }
        doc += "/></VAST>"
        let data = Data(doc.utf8)
        let t0 = threadCPUSeconds()
        let tree = try XMLTreeParser(maxBytes: 4 << 20).parse(data)
        let cpu = threadCPUSeconds() - t0
        #expect(tree.root.child("Ad")?.attributes.count == 180_000)
        #expect(cpu < 10, "\(cpu) s of CPU")
        // Duplicates are still caught.
        #expect(throws: XMLTreeError.self) { try XMLTreeParser().parse(Data("<a x='1' y='2' x='3'/>".utf8)) }
    }

    func vast(_ title: String, declaration: String = "") -> String {
        "\(declaration)<VAST version=\"3.0\"><Ad id=\"é\"><InLine><AdTitle>\(title)</AdTitle></InLine></Ad></VAST>"
    }

    @Test func utf16DocumentsAreRead() throws {
        let text = vast("Café ☕", declaration: "<?xml version=\"1.0\" encoding=\"UTF-16\"?>")
        var le: [UInt8] = [0xFF, 0xFE], be: [UInt8] = [0xFE, 0xFF]
        for unit in text.utf16 {
            le += [UInt8(unit & 0xFF), UInt8(unit >> 8)]
            be += [UInt8(unit >> 8), UInt8(unit & 0xFF)]
        }
        for bytes in [le, be, Array(be.dropFirst(2)), Array(le.dropFirst(2))] {
            let tree = try XMLTreeParser().parse(Data(bytes))
            #expect(tree.root.child("Ad")?.child("InLine")?.childText("AdTitle") == "Café ☕")
            #expect(tree.root.child("Ad")?.attribute("id") == "é")
        }
        guard case .success(.vast(let doc)) = AdResponseParser().parse(Data(le)) else { Issue.record("VAST in UTF-16 refused"); return }
        #expect(doc.ads.first?.inline?.adTitle == "Café ☕")
    }

    @Test func declaredEncodingsAreHonoured() throws {
        let latin1 = vast("Caf\u{E9}", declaration: "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>")
        let bytes = Data(latin1.unicodeScalars.map { UInt8($0.value & 0xFF) })   // é as the single byte 0xE9
        #expect(bytes.contains(0xE9))
        let tree = try XMLTreeParser().parse(bytes)
        #expect(tree.root.child("Ad")?.child("InLine")?.childText("AdTitle") == "Café")
        let cp1252 = Data("<?xml version='1.0' encoding='windows-1252'?><a>\u{80}</a>".unicodeScalars.map { UInt8($0.value & 0xFF) })
        #expect(try XMLTreeParser().parse(cp1252).root.text == "€")
        do {
            _ = try XMLTreeParser().parse(Data("<?xml version='1.0' encoding='EBCDIC-XYZ'?><a/>".utf8))
            Issue.record("unknown encoding accepted")
        } catch {
            #expect(error.message.contains("EBCDIC-XYZ") && !error.isSecurityRejection)
        }
    }

    @Test func doctypeIsRefusedOnlyAsMarkup() throws {
        let html = "<VAST version=\"3.0\"><Ad><InLine><Creatives><Creative><CompanionAds><Companion><HTMLResource><![CDATA[<!DOCTYPE html><html><body>ad</body></html>]]></HTMLResource></Companion></CompanionAds></Creative></Creatives></InLine></Ad><!-- <!DOCTYPE in a comment --></VAST>"
        let tree = try XMLTreeParser().parse(Data(html.utf8))
        #expect(tree.root.name == "VAST")
        for hostile in ["<!DOCTYPE a [<!ENTITY x SYSTEM \"file:///etc/passwd\">]><a>&x;</a>",
                        "<a><![CDATA[x]]><!DOCTYPE a></a>", "<!-- c --><!ENTITY x 'y'><a/>"] {
            do {
                _ = try XMLTreeParser().parse(Data(hostile.utf8))
                Issue.record("accepted \(hostile)")
            } catch {
                #expect(error.isSecurityRejection, "\(hostile): \(error)")
            }
        }
    }
}

import Media
import Testing

/// The content's memory bound, table-tested: the output budget's fit (shape kept, even sides,
/// within the budget), the content budget, and the decoder and encoder threads capped only for
/// large pictures.
@Suite struct ContentPictureBudgetTests {
    @Test func theOutputBudgetFitsLargePicturesKeepingTheirShape() {
        let b = PictureBudget.output
        // within it: unchanged (sides made even)
        for (w, h) in [(640, 360), (1920, 1080), (3840, 2160), (4096, 2304), (2160, 3840), (8192, 1152)] {
            #expect(b.fitted(width: w, height: h) == (w, h), "\(w)x\(h)")
        }
        #expect(b.fitted(width: 1921, height: 1081) == (1920, 1080))
        // over it: the largest even picture of that shape within it
        let expected: [((Int, Int), (Int, Int))] = [
            ((8192, 8192), (3072, 3072)),         // exactly the budget's pixels
            ((16384, 4096), (6144, 1536)),
            ((7680, 4320), (4096, 2304)),         // 8K UHD: the budget is 4K DCI's 16:9
            ((100_000, 2), (8192, 2)),            // held by the longest side
            ((2, 100_000), (2, 8192)),
        ]
        for ((w, h), (fw, fh)) in expected {
            let f = b.fitted(width: w, height: h)
            #expect(f == (fw, fh), "\(w)x\(h) -> \(f)")
            #expect(b.admits(width: f.width, height: f.height) && f.width % 2 == 0 && f.height % 2 == 0)
        }
    }

    @Test func theContentBudget() {
        let b = PictureBudget.content
        for (w, h) in [(8192, 8192), (7680, 4320), (16384, 4096), (640, 360)] { #expect(b.admits(width: w, height: h), "\(w)x\(h)") }
        for (w, h) in [(8194, 8192), (16400, 16), (16, 16400), (9000, 9000)] {
            #expect(b.refusal("the video picture", width: w, height: h)?.description.contains("over the content picture budget") == true, "\(w)x\(h)")
        }
    }

    /// Threads: what was asked (0 included) unless the pictures in flight would pass the byte
    /// budget; at least one.
    @Test func threadsAreCappedOnlyForLargePictures() {
        let p360 = 640 * 360 * 3 / 2, p1080 = 1920 * 1080 * 3 / 2, p4k = 3840 * 2160 * 3 / 2
        let p3072 = 3072 * 3072 * 3 / 2, p8192 = 8192 * 8192 * 3 / 2
        for bytes in [p360, p1080, p4k] {
            for requested in [0, 1, 3, 16] {
                #expect(PictureBudget.decoderThreads(requested: requested, pictureBytes: bytes) == requested, "\(bytes) \(requested)")
            }
        }
        #expect(PictureBudget.decoderThreads(requested: 0, pictureBytes: p8192) == 2)
        #expect(PictureBudget.decoderThreads(requested: 16, pictureBytes: p8192) == 2)
        #expect(PictureBudget.decoderThreads(requested: 1, pictureBytes: p8192) == 1)
        #expect(PictureBudget.decoderThreads(requested: 0, pictureBytes: 4 * p8192) == 1)
        for bytes in [p360, p1080] {
            for requested in [0, 1, 3, 24] {
                #expect(PictureBudget.encoderThreads(requested: requested, pictureBytes: bytes) == requested, "\(bytes) \(requested)")
            }
        }
        #expect(PictureBudget.encoderThreads(requested: 24, pictureBytes: p3072) == 12)
        #expect(PictureBudget.encoderThreads(requested: 3, pictureBytes: p3072) == 3)
        #expect(PictureBudget.encoderThreads(requested: 0, pictureBytes: 0) == 0)
    }
}

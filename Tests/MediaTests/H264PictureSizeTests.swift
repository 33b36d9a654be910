import Foundation
import Media
import Testing
import TestSupport

/// The picture size of an H.264 stream read from its SPS alone (for sample-encrypted MPEG-TS,
/// whose slices cannot be decoded here): cropping applied, odd sizes kept, nil without an SPS.
@Suite struct H264PictureSizeTests {
    @Test func theSPSsSizeIsTheStreamsAndNothingElseHasOne() throws {
        for (w, h) in [(320, 180), (174, 98), (1280, 720)] {
            let es = try TestMedia.derived(from: TestMedia.Sample.adMatching.url, name: "sps-\(w)x\(h).h264",
                                           arguments: ["-t", "0.2", "-an", "-vf", "scale=\(w):\(h)", "-c:v", "libx264", "-f", "h264"])
            let bytes = [UInt8](try Data(contentsOf: es))
            let size = H264PictureSize.of(annexB: bytes)
            #expect(size?.width == w && size?.height == h, "\(w)x\(h): \(String(describing: size))")
            // the slices without their parameter sets: no size
            let noSPS = bytes.indices.first { i in i + 4 < bytes.count && bytes[i] == 0 && bytes[i + 1] == 0 && bytes[i + 2] == 1 && bytes[i + 3] & 0x1F == 5 }
            #expect(H264PictureSize.of(annexB: Array(bytes[(noSPS ?? 0)...])) == nil)
        }
        #expect(H264PictureSize.of(annexB: []) == nil)
        #expect(H264PictureSize.of(annexB: [UInt8](repeating: 0xA5, count: 4096)) == nil)
    }
}

import Foundation
import Media
import Testing
@testable import Window

/// The pure parts of the window: fitting the picture in the window and the frame mailbox.
struct PictureFitTests {
    @Test("the picture fills the window at the output size", arguments: [(320, 240), (640, 360), (1, 1)])
    func identity(size: (Int, Int)) {
        let fit = PictureFit(pictureWidth: size.0, pictureHeight: size.1, areaWidth: size.0, areaHeight: size.1)
        #expect(fit.x == 0 && fit.y == 0 && fit.width == size.0 && fit.height == size.1)
        #expect(fit.outputPoint(x: size.0 - 1, y: size.1 - 1)! == (size.0 - 1, size.1 - 1))
    }

    @Test("a wider window pillarboxes and a taller one letterboxes, centred, never stretched")
    func barsNotStretch() {
        let pillar = PictureFit(pictureWidth: 320, pictureHeight: 240, areaWidth: 640, areaHeight: 360)
        #expect(pillar == PictureFit(pictureWidth: 320, pictureHeight: 240, areaWidth: 640, areaHeight: 360))
        #expect((pillar.x, pillar.y, pillar.width, pillar.height) == (80, 0, 480, 360))
        let letter = PictureFit(pictureWidth: 1280, pictureHeight: 720, areaWidth: 640, areaHeight: 480)
        #expect((letter.x, letter.y, letter.width, letter.height) == (0, 60, 640, 360))
    }

    @Test("window points map to output pixels; points on the bars map to nothing")
    func pointsMap() {
        let fit = PictureFit(pictureWidth: 320, pictureHeight: 240, areaWidth: 640, areaHeight: 360)
        #expect(fit.outputPoint(x: 79, y: 100) == nil)
        #expect(fit.outputPoint(x: 560, y: 100) == nil)
        #expect(fit.outputPoint(x: 80, y: 0)! == (0, 0))
        #expect(fit.outputPoint(x: 280, y: 100)! == (133, 66))
        #expect(fit.outputPoint(x: 559, y: 359)! == (319, 239))
    }

    @Test("the mailbox keeps only the newest frame, counts the replaced one, and stops")
    func mailboxKeepsNewest() throws {
        let box = FrameMailbox(width: 4, height: 2)
        var buffer = box.makeBuffer()
        #expect(box.take(into: &buffer, waitingUntil: Date()) == .nothing)
        for y: UInt8 in [10, 20] {
            let frame = try Frame.solidYUV420(width: 4, height: 2, y: y, u: y + 1, v: y + 2)
            #expect(frame.withYUV420Planes { box.post($0) } == true)
        }
        #expect(box.take(into: &buffer, waitingUntil: Date()) == .frame)
        #expect(buffer == [20, 20, 20, 20, 20, 20, 20, 20, 21, 21, 22, 22])
        #expect(box.replacedCount == 1)
        #expect(box.take(into: &buffer, waitingUntil: Date()) == .nothing)
        #expect(box.stop())
        #expect(!box.stop())
        #expect(box.take(into: &buffer, waitingUntil: Date(timeIntervalSinceNow: 5)) == .stop)
        let late = try Frame.solidYUV420(width: 4, height: 2, y: 1, u: 2, v: 3)
        #expect(late.withYUV420Planes { box.post($0) } == false)
    }
}

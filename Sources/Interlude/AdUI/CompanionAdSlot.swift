import Foundation
import Threads
import Timing

/// A place beside the player for companion ads, as IMA's `IMACompanionAdSlot(view:width:height:)`:
/// given to the `AdDisplayContainer`, it is filled, for each linear ad played, with the ad's
/// companion of exactly its size (a static image), over the ad's stream-time range — what a page
/// would show beside the player. Any thread may read it; the `AdsManager` fills it from its queue.
public final class CompanionAdSlot: Sendable {
    /// Slot width in pixels.
    public let width: Int
    /// Slot height in pixels.
    public let height: Int
    /// What filled it, in play order.
    package var filled: [FilledCompanion] { shown.withLock { $0 } }
    private let shown = Locked<[FilledCompanion]>([])

    /// A slot of `width`×`height` pixels.
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    func fill(_ c: FilledCompanion) { shown.withLock { $0.append(c) } }
}

/// A companion shown in a slot: the image's bytes (checked by decoding them), its type, and when
/// it showed (the stream-time range of its linear ad).
package struct FilledCompanion: Sendable, Equatable {
    /// The slot's size, `WxH`.
    package var slot: String
    /// The linear ad it belongs to.
    package var adId: String
    /// The break.
    package var breakId: String
    /// VAST `<Companion id>`.
    package var companionId: String?
    /// The image as fetched.
    package var data: Data
    /// Its MIME type (`image/png`, …).
    package var creativeType: String
    /// The file name extension for its type.
    package var fileExtension: String
    /// Stream time it appears (its ad's first frame).
    package var streamStart: MediaTime
    /// Stream time it goes (its ad's end).
    package var streamEnd: MediaTime
    /// `<CompanionClickThrough>`, if any.
    package var clickThrough: String?
    /// The decoded image.
    package var image: AdUIImage
}

import Foundation
import Playback
import Timing

/// VMAP double boxes under smart rendering: a double box draws on content frames, which copied
/// packets cannot carry. With `--smart auto` a tag-driven stitch whose ad response asks for one
/// puts a `DoubleBoxReservation` on the player's surface before the first frame, so that its
/// output opens re-encoding all of its content, and the report says why, as for
/// overlays; with `--smart on` the output keeps copying and the break plays as a standard one
/// with a LOG event (1201).
extension AdsManager {
    /// Whether a break of the response asks for a double box (its VMAP extension, even malformed).
    var hasDoubleBoxes: Bool {
        isAdRules && perform {
            plans.contains { plan in
                plan.scheduled.extensions.contains { $0.type?.lowercased() == DoubleBoxStyle.vmapExtensionType }
            }
        }
    }
}

/// Stands for the double boxes to come when a stitch's session is opened: a layer that may draw
/// on content frames (so content is re-encoded) and draws nothing itself; each break's own
/// `DoubleBoxLayer` is added when it starts.
final class DoubleBoxReservation: SurfaceLayer {
    func isVisible(_ frame: SurfaceFrameInfo) -> Bool { false }
    func draw(on canvas: Canvas, _ frame: SurfaceFrameInfo) throws {}
    var drawsOnContent: Bool { true }
}

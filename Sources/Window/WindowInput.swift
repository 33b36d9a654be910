/// What the viewer did in the window, reported through `WindowOutput.onInput`.
public enum WindowInput: Sendable, Equatable {
    /// A printable key, as its unshifted character: `" "` for space, `"s"`, `"c"`, `"p"`, `"f"`,
    /// `"q"` and so on. (`"f"` has already toggled fullscreen when it is reported.)
    case key(Character)
    /// The left arrow key (auto-repeat included).
    case left
    /// The right arrow key (auto-repeat included).
    case right
    /// A left click, in output pixel coordinates (0..<width, 0..<height of the output format),
    /// mapped from the window however it is scaled. Clicks on the bars around the picture are not
    /// reported.
    case click(x: Int, y: Int)
    /// The window was closed by the viewer (or the window manager). The window stays open until
    /// `finish()`; what to do is the player's decision.
    case quit
}

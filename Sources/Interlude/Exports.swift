// `import Interlude` is all an app needs: the player, its surface and outputs (Playback), drawing (Draw) and
// rational time (Timing) come with it.
@_exported import Playback
@_exported import Timing
@_exported import Draw

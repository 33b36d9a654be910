// `import Interlude` is all an app needs: the player, its surface and outputs (Playback), drawing (Draw) and
// rational time (Timing) come with it.
@_exported import Playback
@_exported import Timing
@_exported import Draw

// The types of Media and Ads that public signatures of the modules above name, one by one, so an app can name
// them with `import Interlude` alone (a layer draws on a `Frame`, an ad UI shows an `RGBAImage`, a native
// format has its `NativeFormatDefinition`, `AdsLoader.mediaCache` is an `AdMediaCache`, `AdsManager.beacons` are
// `TrackedBeacon`s …) without the rest of those modules: FFmpeg's objects (Demuxer, Decoder, Encoder,
// Muxer …) and the VAST/VMAP parser stay behind them. `scripts/public-api.sh` lists what is exposed.
@_exported import class Media.Frame
@_exported import class Media.FrameScaler
@_exported import struct Media.RGBAImage
@_exported import class Ads.AdMediaCache
@_exported import struct Ads.NativeFormatDefinition
@_exported import struct Ads.NativeResponseError
@_exported import struct Ads.TrackedBeacon

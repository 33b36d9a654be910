// swift-tools-version:6.0
// Interlude: server-side ad insertion on FFmpeg, with the IMA SDK's model.
import PackageDescription

let package = Package(
    name: "Interlude",
    products: [
        .library(name: "Interlude", targets: ["Interlude"]),
        // The live window (SDL2) as an output of the player's surface, for apps that show video.
        .library(name: "InterludeWindow", targets: ["Window"]),
        .executable(name: "interlude", targets: ["InterludeCLI"]),
        .executable(name: "interlude-bench", targets: ["InterludeBench"]),
    ],
    targets: [
        // C only: FFmpeg's libraries through pkg-config, plus a shim for macros Swift cannot import.
        .systemLibrary(
            name: "CFFmpeg",
            pkgConfig: "libavformat libavcodec libavfilter libavutil libswscale libswresample",
            providers: [.apt(["libavformat-dev", "libavcodec-dev", "libavfilter-dev", "libavutil-dev",
                              "libswscale-dev", "libswresample-dev"])]
        ),
        // C only: SDL2 for the live window, through pkg-config.
        .systemLibrary(name: "CSDL2", pkgConfig: "sdl2", providers: [.apt(["libsdl2-dev"])]),
        // C only: FreeType for text drawn on the surface, through pkg-config.
        .systemLibrary(name: "CFreeType", pkgConfig: "freetype2", providers: [.apt(["libfreetype-dev"])]),
        // C only: libcurl for the http(s) fetcher, through pkg-config.
        .systemLibrary(name: "CCurl", pkgConfig: "libcurl", providers: [.apt(["libcurl4-openssl-dev"])]),
        // C only: libmicrohttpd for serve's HTTP server, through pkg-config.
        .systemLibrary(name: "CMicroHTTPD", pkgConfig: "libmicrohttpd", providers: [.apt(["libmicrohttpd-dev"])]),
        // C only: hiredis for the Redis client, through pkg-config.
        .systemLibrary(name: "CHiredis", pkgConfig: "hiredis", providers: [.apt(["libhiredis-dev"])]),
        // Rational time shared by every layer.
        .target(name: "Timing"),
        // The concurrency tools: state bound to the thread that owns it, asserted in debug builds.
        .target(name: "Threads"),
        // The process's own files: temporaries removed on a signal or left by dead runs, small
        // local files read without blocking.
        .target(name: "Files", dependencies: ["Threads"]),
        // Manifests as values: HLS playlists (and their live evolution) with one writer and one
        // parser, for the stitch, the service and its origins. Pure Swift.
        .target(name: "Manifest", dependencies: ["Timing"]),
        // The only Swift module that imports CFFmpeg: owns every FFmpeg object.
        .target(name: "Media", dependencies: ["CFFmpeg", "Timing"]),
        // Drawing on frames: text (FreeType, the only module importing CFreeType), sprites, boxes, scaled pictures.
        .target(name: "Draw", dependencies: ["CFreeType", "Media", "Threads"]),
        // Frame loop, true playhead, conforming, splicing, sinks.
        .target(name: "Playback", dependencies: ["Media", "Timing", "Draw", "Manifest", "Threads", "Files"]),
        // VAST / VMAP, no FFmpeg; its http(s) fetcher is the only Swift module importing CCurl; the
        // ad media cache and the beacon sender.
        .target(name: "Ads", dependencies: ["CCurl", "Timing", "Threads", "Files"]),
        // The live window output (SDL2): the only Swift module that imports CSDL2.
        .target(name: "Window", dependencies: ["CSDL2", "Playback", "Media", "Threads"]),
        // The IMA-shaped public API and the stitcher.
        .target(name: "Interlude", dependencies: ["Playback", "Media", "Ads", "Timing", "Draw", "Threads", "Manifest", "Files"]),
        // What the commands run, callable without a process: the stitch and inspect jobs (checks of
        // every file, the stitch entry point, companions, report, summary, commit).
        .target(name: "Jobs", dependencies: ["Interlude", "Playback", "Ads", "Timing", "Files"]),
        // An HTTP/1.1 server (thread pool, keep-alive, limits): the only Swift module importing CMicroHTTPD.
        .target(name: "HTTPServer", dependencies: ["CMicroHTTPD", "Threads"]),
        // A Redis client (connections, backoff): the only Swift module importing CHiredis.
        .target(name: "Redis", dependencies: ["CHiredis", "Threads"]),
        // `interlude serve`: server-side ad insertion for HLS (sessions, per-viewer playlists,
        // tracking, operations) over a store of shared cuts, ladders and ad renditions.
        .target(name: "Serve", dependencies: ["HTTPServer", "Redis", "Interlude", "Playback", "Ads", "Media", "Manifest", "Timing", "Threads"]),
        // Command-line app: thin.
        .executableTarget(name: "InterludeCLI", dependencies: ["Jobs", "Interlude", "Playback", "Ads", "Timing", "Window", "Serve", "Threads", "Files"]),
        // Benchmarks against the ffmpeg CLI.
        .executableTarget(name: "InterludeBench", dependencies: ["Jobs", "Interlude", "Playback", "Media", "Timing", "Threads"]),
        // Test helpers: generated media, an independent ffmpeg-CLI verifier, a loopback HTTP server.
        .target(name: "TestSupport", dependencies: ["Timing", "Threads"]),
        .testTarget(name: "TimingTests", dependencies: ["Timing"]),
        .testTarget(name: "ThreadsTests", dependencies: ["Threads"]),
        .testTarget(name: "ManifestTests", dependencies: ["Manifest", "Timing", "TestSupport"]),
        .testTarget(name: "MediaTests", dependencies: ["Media", "TestSupport"]),
        .testTarget(name: "DrawTests", dependencies: ["Draw", "Media", "TestSupport"]),
        .testTarget(name: "PlaybackTests", dependencies: ["Playback", "Interlude", "Media", "Manifest", "TestSupport"]),
        .testTarget(name: "AdsTests", dependencies: ["Ads", "TestSupport"]),
        .testTarget(name: "InterludeTests", dependencies: ["Interlude", "Jobs", "Playback", "Ads", "Media", "TestSupport"]),
        .testTarget(name: "CLITests", dependencies: ["TestSupport", "Timing"]),
        // IMA's guides ported with mechanical substitutions: the app code imports only Interlude.
        .testTarget(name: "GuideTests", dependencies: ["Interlude", "TestSupport"]),
        .testTarget(name: "ServeTests", dependencies: ["Serve", "HTTPServer", "Redis", "Interlude", "Playback", "Ads", "Media", "Manifest", "Timing", "TestSupport", "Threads"]),
        .testTarget(name: "WindowTests", dependencies: ["Window", "Playback", "Media", "Timing", "TestSupport"]),
    ]
)

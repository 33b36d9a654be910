import Files
import Foundation
import Timing

/// Publishes an HLS package: cuts the stitched MP4 into a new folder beside the target, then
/// renames the folder into place, so a failed stitch leaves nothing at the output path.
enum HLSOutput {
    /// Packages `mp4` as the folder `output` (replacing it when `overwrite`), then removes `mp4`.
    static func publish(mp4: String, to output: String, duration: MediaTime, breaks: [PackagedBreak],
                        settings: HLSSettings, startDate: Date, overwrite: Bool) throws {
        let fm = FileManager.default
        let target = URL(fileURLWithPath: output).standardizedFileURL
        let staging = URL(fileURLWithPath: OutputTarget.stagingFolderPath(for: target.path))
        try? fm.removeItem(at: staging)
        TemporaryFiles.register(staging.path)   // removed on SIGINT/SIGTERM/SIGHUP (registered before it exists)
        defer { TemporaryFiles.unregister(staging.path) }
        try fm.createDirectory(at: staging, withIntermediateDirectories: false)
        do {
            _ = try HLSPackager.package(mp4: mp4, into: staging.path, duration: duration, breaks: breaks,
                                        settings: settings, programDate: settings.programDate ?? startDate)
            // the rules again now (the folder may have changed during the stitch)
            try OutputTarget.validateFolder(output, overwrite: overwrite, role: "output")
            try OutputTarget.replaceFolder(target.path, with: staging.path)
        } catch {
            try? fm.removeItem(at: staging)
            throw error
        }
        TemporaryFiles.discard(mp4)
    }
}

extension HLSOutput {
    /// The encoder settings of a request: for HLS, a keyframe every segment duration inside each
    /// run, so segments can be cut close to the target.
    static func encoderSettings(_ request: StitchRequest, format: OutputFormat) -> EncoderSettings {
        var settings = request.encoder
        if request.container == .hls {
            let frames = (request.hls.segmentDuration.seconds * format.frameRate.doubleValue).rounded()
            settings.keyframeInterval = max(1, Int(frames))
        }
        return settings
    }
}

import Foundation

/// The ladder every content and ad is served in, from a LADDER string or from the source's size.
///
/// A LADDER string lists rungs top first, separated by commas: `NAME:WIDTHxHEIGHT:VIDEO[:AUDIO]`,
/// bitrates in bits/s with an optional `k` or `m` suffix, e.g.
/// `720p:1280x720:3000k,360p:640x360:800k` (audio defaults to 128k). The rung whose size is the
/// source's carries the source's own video packets (copied); every other rung is encoded.
public enum Ladder {
    /// Audio bits per second of a rung that names none.
    public static let defaultAudioBitrate = 128_000

    /// Parses a LADDER string; throws `StoreError.badLadder` with a one-line reason.
    public static func parse(_ text: String) throws -> [Rendition] {
        var out: [Rendition] = []
        for item in text.split(separator: ",", omittingEmptySubsequences: false) {
            let f = item.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
            guard f.count == 3 || f.count == 4 else {
                throw StoreError.badLadder("'\(item)' is not NAME:WIDTHxHEIGHT:BITRATE[:AUDIOBITRATE]")
            }
            let name = f[0]
            guard !name.isEmpty, name.count <= 32, name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "_" || $0 == "-") }) else {
                throw StoreError.badLadder("rung name '\(name)' must be 1-32 letters, digits, '-' or '_'")
            }
            let size = f[1].split(separator: "x").compactMap { Int($0) }
            guard size.count == 2, (16...8192).contains(size[0]), (16...8192).contains(size[1]), size[0] % 2 == 0, size[1] % 2 == 0 else {
                throw StoreError.badLadder("size '\(f[1])' of \(name) must be WIDTHxHEIGHT, even, 16 to 8192")
            }
            guard let video = bitrate(f[2]), let audio = f.count == 4 ? bitrate(f[3]) : defaultAudioBitrate else {
                throw StoreError.badLadder("bitrate of \(name) must be a number of bits/s, e.g. 800k or 3m")
            }
            guard !out.contains(where: { $0.name == name }) else { throw StoreError.badLadder("rung name \(name) appears twice") }
            out.append(Rendition(name: name, width: size[0], height: size[1], videoBitrate: video, audioBitrate: audio))
        }
        guard !out.isEmpty else { throw StoreError.badLadder("the ladder is empty") }
        return out
    }

    /// `800k`, `3m`, `96000` as bits/s (1 kbit/s to 200 Mbit/s); nil otherwise.
    static func bitrate(_ s: String) -> Int? {
        let lower = s.lowercased()
        var scale = 1
        var digits = Substring(lower)
        if lower.hasSuffix("k") { scale = 1000; digits = digits.dropLast() }
        else if lower.hasSuffix("m") { scale = 1_000_000; digits = digits.dropLast() }
        guard let n = Int(digits), n > 0 else { return nil }
        let (v, overflow) = n.multipliedReportingOverflow(by: scale)
        return !overflow && (1000...200_000_000).contains(v) ? v : nil
    }

    /// The default ladder for a source of `width`x`height`: the source's own size (copied, at its
    /// measured `sourceBitrate`), then 720p, 540p, 360p and 240p below it, same aspect, even sizes,
    /// each at most the rung above's bitrate scaled by area (the bitrates fall down the ladder).
    public static func defaults(width: Int, height: Int, sourceBitrate: Int) -> [Rendition] {
        var out = [Rendition(name: "\(height)p", width: width, height: height,
                             videoBitrate: max(1000, sourceBitrate), audioBitrate: defaultAudioBitrate)]
        for h in [720, 540, 360, 240] where h < height && out.count < 4 {
            let w = Int((Double(width) * Double(h) / Double(height) / 2).rounded()) * 2
            // ~0.1 bit per pixel at 30 frames/s, but never more than the rung above scaled by
            // area: a lower rung advertising a higher BANDWIDTH would be a player's first choice
            let above = out[out.count - 1]
            let scaled = Int(Double(above.videoBitrate) * Double(w * h) / Double(above.width * above.height))
            let rate = max(1000, min(max(200_000, Int(Double(w * h) * 30 * 0.1)), scaled))
            out.append(Rendition(name: "\(h)p", width: w, height: h, videoBitrate: rate, audioBitrate: defaultAudioBitrate))
        }
        return out
    }
}

import CFFmpeg
import Foundation

/// Decodes a still image (PNG, JPEG, WebP, GIF's first frame, BMP) from bytes already in memory
/// with FFmpeg's image decoders, into RGBA. Only bytes: no file, no URL, no protocol is opened, so
/// an image from an ad server cannot name anything local. Owns its codec context for one call.
public enum ImageDecoder {
    /// The image formats recognised, by their leading bytes.
    public enum Kind: String, Sendable, CaseIterable {
        /// PNG (`89 50 4E 47 0D 0A 1A 0A`).
        case png
        /// JPEG (`FF D8 FF`).
        case jpeg
        /// WebP (`RIFF` … `WEBP`).
        case webp
        /// GIF (`GIF87a`, `GIF89a`).
        case gif
        /// BMP (`BM`).
        case bmp
    }

    /// The format `data` starts like, or nil.
    public static func kind(of data: Data) -> Kind? {
        let b = [UInt8](data.prefix(12))
        if b.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return .png }
        if b.starts(with: [0xFF, 0xD8, 0xFF]) { return .jpeg }
        if b.count >= 12, b.starts(with: Array("RIFF".utf8)), Array(b[8..<12]) == Array("WEBP".utf8) { return .webp }
        if b.starts(with: Array("GIF87a".utf8)) || b.starts(with: Array("GIF89a".utf8)) { return .gif }
        if b.starts(with: Array("BM".utf8)) { return .bmp }
        return nil
    }

    /// Decodes `data`. Throws `MediaError.unsupported` for bytes that are no known image, and for
    /// pictures of more than `maxPixels` pixels (checked by the decoder before it allocates).
    public static func decode(_ data: Data, maxPixels: Int = 16_777_216) throws -> RGBAImage {
        guard let kind = kind(of: data) else { throw MediaError.unsupported("not a PNG, JPEG, WebP, GIF or BMP image") }
        MemoryLimit.install()
        let id: AVCodecID
        switch kind {
        case .png: id = AV_CODEC_ID_PNG
        case .jpeg: id = AV_CODEC_ID_MJPEG
        case .webp: id = AV_CODEC_ID_WEBP
        case .gif: id = AV_CODEC_ID_GIF
        case .bmp: id = AV_CODEC_ID_BMP
        }
        guard let codec = avcodec_find_decoder(id) else { throw MediaError.unsupported("no \(kind.rawValue) decoder in this FFmpeg") }
        guard let ctx = avcodec_alloc_context3(codec) else { throw MediaError.allocationFailed("AVCodecContext") }
        defer { var c: UnsafeMutablePointer<AVCodecContext>? = ctx; avcodec_free_context(&c) }
        ctx.pointee.max_pixels = Int64(maxPixels)
        ctx.pointee.thread_count = 1
        try check(avcodec_open2(ctx, codec, nil), "cannot open the \(kind.rawValue) decoder")
        let packet = try Packet()
        try check(av_new_packet(packet.pointer, Int32(data.count)), "allocating an image packet")
        data.withUnsafeBytes { packet.pointer.pointee.data.update(from: $0.bindMemory(to: UInt8.self).baseAddress!, count: data.count) }
        packet.pointer.pointee.flags |= AV_PKT_FLAG_KEY
        let frame = try Frame()
        var got = false
        let sent = avcodec_send_packet(ctx, packet.pointer)
        if sent < 0, sent != averrorEAGAIN { try check(sent, "decoding the \(kind.rawValue) image") }
        _ = avcodec_send_packet(ctx, nil)
        while true {
            let r = avcodec_receive_frame(ctx, frame.pointer)
            if r == averrorEAGAIN || r == averrorEOF { break }
            try check(r, "decoding the \(kind.rawValue) image")
            got = true
            break
        }
        guard got, frame.width > 0, frame.height > 0 else { throw MediaError.unsupported("the \(kind.rawValue) image holds no picture") }
        guard frame.width * frame.height <= maxPixels else {
            throw MediaError.unsupported("the image is \(frame.width)x\(frame.height), over \(maxPixels) pixels")
        }
        return try toRGBA(frame, width: frame.width, height: frame.height)
    }

    /// Converts any decoded video frame to RGBA at `width`×`height` (bilinear).
    static func toRGBA(_ frame: Frame, width: Int, height: Int) throws -> RGBAImage {
        let src = frame.pointer
        guard let sws = sws_getContext(src.pointee.width, src.pointee.height, AVPixelFormat(rawValue: src.pointee.format),
                                       Int32(width), Int32(height), AV_PIX_FMT_RGBA, SWS_BILINEAR, nil, nil, nil) else {
            throw MediaError.unsupported("cannot convert \(frame.pixelFormatName) to RGBA")
        }
        defer { sws_freeContext(sws) }
        var pixels = [UInt8](repeating: 0, count: width * height * 4)
        let ok: Int32 = pixels.withUnsafeMutableBufferPointer { buf in
            var dst: [UnsafeMutablePointer<UInt8>?] = [buf.baseAddress, nil, nil, nil]
            var dstStride: [Int32] = [Int32(width * 4), 0, 0, 0]
            let srcData: [UnsafePointer<UInt8>?] = [src.pointee.data.0, src.pointee.data.1, src.pointee.data.2, src.pointee.data.3].map { $0.map { UnsafePointer($0) } }
            let srcStride: [Int32] = [src.pointee.linesize.0, src.pointee.linesize.1, src.pointee.linesize.2, src.pointee.linesize.3]
            return sws_scale(sws, srcData, srcStride, 0, src.pointee.height, &dst, &dstStride)
        }
        guard ok > 0 else { throw MediaError.unsupported("cannot convert \(frame.pixelFormatName) to RGBA") }
        return try RGBAImage(width: width, height: height, pixels: pixels)
    }
}

extension RGBAImage {
    /// This image resampled to `width`×`height` (bilinear, by swscale).
    public func scaled(width w: Int, height h: Int) throws -> RGBAImage {
        guard w > 0, h > 0 else { throw MediaError.unsupported("scaling an image to \(w)x\(h)") }
        if w == width && h == height { return self }
        guard let sws = sws_getContext(Int32(width), Int32(height), AV_PIX_FMT_RGBA, Int32(w), Int32(h), AV_PIX_FMT_RGBA,
                                       SWS_BILINEAR, nil, nil, nil) else {
            throw MediaError.unsupported("cannot scale an image to \(w)x\(h)")
        }
        defer { sws_freeContext(sws) }
        var out = [UInt8](repeating: 0, count: w * h * 4)
        let ok: Int32 = pixels.withUnsafeBufferPointer { src in
            out.withUnsafeMutableBufferPointer { dst in
                let s: [UnsafePointer<UInt8>?] = [src.baseAddress, nil, nil, nil]
                let ss: [Int32] = [Int32(width * 4), 0, 0, 0]
                var d: [UnsafeMutablePointer<UInt8>?] = [dst.baseAddress, nil, nil, nil]
                var ds: [Int32] = [Int32(w * 4), 0, 0, 0]
                return sws_scale(sws, s, ss, 0, Int32(height), &d, &ds)
            }
        }
        guard ok > 0 else { throw MediaError.unsupported("cannot scale an image to \(w)x\(h)") }
        return try RGBAImage(width: w, height: h, pixels: out)
    }
}

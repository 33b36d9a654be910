import CFreeType
import Foundation
import Threads

/// Coverage of a line of text: one alpha byte per pixel, `width`×`height`, the text's baseline
/// at row `baseline`. What a `Font` renders; a `Sprite` colours it.
public struct TextMask: Sendable, Equatable {
    /// The size in pixels.
    public let width: Int, height: Int
    /// Row of the baseline from the top.
    public let baseline: Int
    /// `width * height` coverage values, row after row.
    public let alpha: [UInt8]
}

/// A TrueType/OpenType face loaded with FreeType, rendering one line of text at a pixel height
/// into a `TextMask`. Owns its FreeType library and face; one thread at a time.
public final class Font: Sendable {
    /// The FreeType library and face this font owns.
    private struct FreeType {
        var library: FT_Library?
        var face: FT_Face?
    }
    /// FreeType's state, touched only under this lock.
    private let freeType: Locked<FreeType>
    /// The font file.
    public let path: String

    /// Where Debian's `fonts-dejavu-core` puts DejaVu Sans.
    public static let dejaVuDirectory = "/usr/share/fonts/truetype/dejavu"

    /// Loads the face in `path`. Throws `DrawError.font` with one line when it cannot.
    public init(path: String) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw DrawError.font("font \(path) not found (Debian: apt-get install fonts-dejavu-core)")
        }
        var library: FT_Library?, face: FT_Face?
        guard FT_Init_FreeType(&library) == 0, let library else { throw DrawError.font("cannot start FreeType") }
        guard FT_New_Face(library, path, 0, &face) == 0, face != nil else {
            FT_Done_FreeType(library)
            throw DrawError.font("cannot load font \(path)")
        }
        freeType = Locked(FreeType(library: library, face: face))
    }

    deinit {
        freeType.withLock { ft in
            if let face = ft.face { FT_Done_Face(face) }
            if let library = ft.library { FT_Done_FreeType(library) }
        }
    }

    /// DejaVu Sans (or its bold), from `fonts-dejavu-core`.
    public static func dejaVuSans(bold: Bool = false) throws -> Font {
        try Font(path: dejaVuDirectory + (bold ? "/DejaVuSans-Bold.ttf" : "/DejaVuSans.ttf"))
    }

    /// Renders `text` on one line at `pixelHeight` (the em size in pixels), antialiased, with
    /// the face's kerning. Characters the face lacks are drawn as its missing-glyph box.
    public func render(_ text: String, pixelHeight: Int) throws -> TextMask {
        try freeType.withLock { ft in
            guard let face = ft.face else { throw DrawError.font("font \(path) is not loaded") }
            return try Self.render(text, pixelHeight: pixelHeight, face: face, path: path)
        }
    }

    /// `render` with the face, FreeType's lock held.
    private static func render(_ text: String, pixelHeight: Int, face: FT_Face, path: String) throws -> TextMask {
        guard FT_Set_Pixel_Sizes(face, 0, FT_UInt(max(1, pixelHeight))) == 0 else {
            throw DrawError.font("font \(path) has no size \(pixelHeight)")
        }
        let metrics = face.pointee.size.pointee.metrics
        let ascender = Int(metrics.ascender >> 6), descender = Int(-metrics.descender >> 6)
        let height = max(1, ascender + descender)
        // First pass: pen positions and the total width.
        struct Glyph { var bitmap: [UInt8]; var w: Int; var h: Int; var left: Int; var top: Int; var x: Int }
        var glyphs: [Glyph] = []
        var pen = 0, previous: FT_UInt = 0, right = 0
        let hasKerning = (face.pointee.face_flags & FT_Long(FT_FACE_FLAG_KERNING)) != 0
        for scalar in text.unicodeScalars {
            let index = FT_Get_Char_Index(face, FT_ULong(scalar.value))
            if hasKerning, previous != 0, index != 0 {
                var delta = FT_Vector()
                if FT_Get_Kerning(face, previous, index, FT_KERNING_DEFAULT.rawValue, &delta) == 0 { pen += Int(delta.x >> 6) }
            }
            guard FT_Load_Glyph(face, index, FT_Int32(FT_LOAD_RENDER)) == 0, let slot = face.pointee.glyph else { continue }
            let bm = slot.pointee.bitmap
            let w = Int(bm.width), h = Int(bm.rows), pitch = Int(bm.pitch)
            var bytes = [UInt8](repeating: 0, count: w * h)
            if let buffer = bm.buffer, pitch > 0 {
                for row in 0..<h { for col in 0..<w { bytes[row * w + col] = buffer[row * pitch + col] } }
            }
            let left = Int(slot.pointee.bitmap_left)
            glyphs.append(Glyph(bitmap: bytes, w: w, h: h, left: left, top: Int(slot.pointee.bitmap_top), x: pen))
            right = max(right, pen + left + w)
            pen += Int(slot.pointee.advance.x >> 6)
            previous = index
        }
        let width = max(1, max(pen, right))
        var alpha = [UInt8](repeating: 0, count: width * height)
        for g in glyphs {
            for row in 0..<g.h {
                let y = ascender - g.top + row
                guard y >= 0, y < height else { continue }
                for col in 0..<g.w {
                    let x = g.x + g.left + col
                    guard x >= 0, x < width else { continue }
                    let i = y * width + x
                    alpha[i] = max(alpha[i], g.bitmap[row * g.w + col])
                }
            }
        }
        return TextMask(width: width, height: height, baseline: ascender, alpha: alpha)
    }
}

/// Failures of drawing: one line each.
public enum DrawError: Error, Equatable, CustomStringConvertible {
    /// A font could not be found or used.
    case font(String)
    /// A frame that cannot be drawn on (not yuv420p).
    case unsupportedFrame(String)

    /// The problem, in one line.
    public var description: String {
        switch self {
        case .font(let s), .unsupportedFrame(let s): return s
        }
    }
}

/// A time as JSON: `[value, timescale]`, exactly (no rounding through a Double). Decoding
/// refuses a timescale that is not positive, so a stored record read back cannot make a time
/// that traps.
extension MediaTime: Codable {
    /// Reads `[value, timescale]`.
    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        let value = try c.decode(Int64.self), timescale = try c.decode(Int64.self)
        guard timescale > 0 else {
            throw DecodingError.dataCorruptedError(in: c, debugDescription: "a time's timescale must be positive, not \(timescale)")
        }
        self.init(value: value, timescale: timescale)
    }

    /// Writes `[value, timescale]`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(value)
        try c.encode(timescale)
    }
}

/// A ratio as JSON: `[numerator, denominator]`. Decoding refuses a denominator that is not
/// positive (a frame rate read back from a stored record cannot trap).
extension Rational: Codable {
    /// Reads `[numerator, denominator]`.
    public init(from decoder: any Decoder) throws {
        var c = try decoder.unkeyedContainer()
        let n = try c.decode(Int64.self), d = try c.decode(Int64.self)
        guard d > 0 else { throw DecodingError.dataCorruptedError(in: c, debugDescription: "a ratio's denominator must be positive, not \(d)") }
        self.init(n, d)
    }

    /// Writes `[numerator, denominator]`.
    public func encode(to encoder: any Encoder) throws {
        var c = encoder.unkeyedContainer()
        try c.encode(numerator)
        try c.encode(denominator)
    }
}

/// What one code point of a web font was found to draw.
public struct DecodedGlyph: Sendable, Equatable, Codable {
    /// The character the glyph shows.
    public var scalar: UInt32
    /// How alike the glyph and the reference are (about 1 for the same outline; under 0.7 rarely right).
    public var score: Float
    /// How far ahead of the next character the choice was.
    public var margin: Float
    /// The next best character, named in warnings for a low-confidence choice.
    public var runnerUp: UInt32?
    /// Found by an exact outline match (the fast path) rather than by recognition.
    public var exact: Bool

    /// A choice too close to call or too unlike any reference: kept as the best guess, with a warning.
    public var isLowConfidence: Bool {
        !exact && (score < DecodedGlyph.lowScore || margin < DecodedGlyph.lowMargin)
    }

    static let lowScore: Float = 0.72
    static let lowMargin: Float = 0.012

    /// The character as text.
    public var character: String { Unicode.Scalar(scalar).map { String(Character($0)) } ?? "\u{FFFD}" }
}

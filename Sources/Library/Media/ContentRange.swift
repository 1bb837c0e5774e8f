/// A `Content-Range` field value (RFC 9110 §14.4): `bytes FIRST-LAST/COMPLETE` on a 206, `bytes */COMPLETE` on a
/// 416, where COMPLETE may be `*` (unknown) in the first form.
public struct ContentRange: Sendable, Hashable {
    /// The byte range sent, inclusive; nil for the unsatisfied form `bytes */COMPLETE`.
    public var range: ClosedRange<Int64>?
    /// The complete length of the representation, when the server knows it.
    public var completeLength: Int64?

    /// Creates a value.
    public init(range: ClosedRange<Int64>?, completeLength: Int64?) {
        self.range = range
        self.completeLength = completeLength
    }

    /// Why a `Content-Range` value could not be read.
    public struct ParseError: Error, Sendable, Hashable, CustomStringConvertible {
        /// The value as received.
        public var value: String
        /// What is wrong with it.
        public var reason: String

        /// A sentence naming the value and the problem.
        public var description: String { "malformed Content-Range \"\(value)\": \(reason)" }
    }

    /// Reads `value`; throws on anything malformed (never traps on hostile input).
    public static func parse(_ value: String) throws(ParseError) -> ContentRange {
        func fail(_ reason: String) -> ParseError { ParseError(value: value, reason: reason) }
        let text = value.trimmingASCIIWhitespace()
        guard text.lowercased().hasPrefix("bytes ") else { throw fail("the unit is not bytes") }
        let rest = text.dropFirst(6).trimmingASCIIWhitespace()
        let halves = rest.split(separator: "/", omittingEmptySubsequences: false)
        guard halves.count == 2 else { throw fail("expected RANGE/LENGTH") }
        let lengthText = halves[1]
        var completeLength: Int64?
        if lengthText != "*" {
            guard let length = number(lengthText) else { throw fail("the complete length is not a number") }
            completeLength = length
        }
        if halves[0] == "*" {
            guard completeLength != nil else { throw fail("bytes */* names no length") }
            return ContentRange(range: nil, completeLength: completeLength)
        }
        let ends = halves[0].split(separator: "-", omittingEmptySubsequences: false)
        guard ends.count == 2, let first = number(ends[0]), let last = number(ends[1]) else {
            throw fail("expected FIRST-LAST byte positions")
        }
        guard first <= last else { throw fail("the first byte is after the last") }
        if let completeLength, last >= completeLength { throw fail("the range ends past the complete length") }
        return ContentRange(range: first...last, completeLength: completeLength)
    }

    /// A non-negative decimal that fits in 63 bits, digits only.
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.count <= 18, text.allSatisfy({ $0.isASCII && $0.isNumber }) else { return nil }
        return Int64(text)
    }
}

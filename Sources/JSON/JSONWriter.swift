import Foundation

/// The one way bookrule writes JSON: every file it keeps (snapshots, download sidecars, HAR recordings, the
/// library's variables) and everything it prints (`--json`) goes through here, so they share one format and one
/// string escaping (`JSONValue.serialized(pretty:)`): `/` not escaped, non-ASCII kept as is, U+FEFF escaped.
///
/// An `Encodable` value is written with its keys sorted and dates as ISO 8601: Foundation's `JSONEncoder` maps
/// it to JSON, which is read back into a `JSONValue` and written from there, so Foundation's own layout and
/// escaping (`" : "`, a raw U+FEFF) never reach a file. Documents whose member order matters (a HAR recording,
/// a source written back) are built as a `JSONValue` and written with `bytes(_:style:)`, which keeps their order.
public enum JSONWriter {
    /// How the text is laid out.
    public enum Style: Sendable {
        /// No whitespace: one line (JSON lines, values stored in the library).
        case compact
        /// Two-space indentation, each member on its own line (files people read and diff).
        case pretty
    }

    /// `value` encoded as UTF-8 JSON text; `.pretty` text ends with a line break, as text files do.
    public static func bytes<Value: Encodable>(_ value: Value, style: Style = .compact) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        let encoded = Array(try encoder.encode(value))
        return bytes(try JSONParser.parse(encoded).value, style: style)
    }

    /// `bytes(_:style:)` as a string, without the final line break (for printing).
    public static func string<Value: Encodable>(_ value: Value, style: Style = .compact) throws -> String {
        var text = String(decoding: try bytes(value, style: style), as: UTF8.self)
        if text.hasSuffix("\n") { text.removeLast() }
        return text
    }

    /// A `JSONValue` as UTF-8 JSON text in its own member order (see `JSONValue.serialized(pretty:)`);
    /// `.pretty` text ends with a line break.
    public static func bytes(_ value: JSONValue, style: Style = .compact) -> [UInt8] {
        var bytes = value.serializedBytes(pretty: style == .pretty)
        if style == .pretty { bytes.append(0x0A) }
        return bytes
    }

    /// `value` written to `path` atomically (`LocalFile.writeAtomically`).
    public static func write<Value: Encodable>(_ value: Value, style: Style = .pretty, to path: String) throws {
        try LocalFile.writeAtomically(try bytes(value, style: style), to: path)
    }
}

import Foundation
import Testing
import BookRuleJSON

/// An `Encodable` value with what tells writers apart: a byte-order mark, a slash, non-ASCII text, a date,
/// nesting and keys out of order.
private struct Sample: Encodable {
    let text = "\u{FEFF}a/书\u{FEFF}"
    let when = Date(timeIntervalSince1970: 0)
    let inner = ["z": 1, "a": 2]
    let list: [Int] = []
}

@Suite("JSONWriter: one format and one string escaping for every JSON bookrule writes")
struct JSONWriterTests {
    @Test("U+FEFF is escaped wherever it stands in a string, and reads back as U+FEFF")
    func byteOrderMarkIsEscapedEverywhere() throws {
        let value = JSONValue.string("\u{FEFF}start, mid\u{FEFF}dle, after an escape\n\u{FEFF}, end\u{FEFF}")
        let text = value.serialized()
        #expect(text == #""\ufeffstart, mid\ufeffdle, after an escape\n\ufeff, end\ufeff""#)
        #expect(!text.unicodeScalars.contains("\u{FEFF}"))
        #expect(try JSONParser.parse(text).value == value)
    }

    @Test("a lone EF byte pair that is not U+FEFF is kept as it is")
    func otherCharactersStartingWithEFAreKept() {
        // U+FFFD and U+FEFE share the first UTF-8 byte (0xEF) with U+FEFF.
        #expect(JSONValue.string("\u{FFFD}\u{FEFE}").serialized() == "\"\u{FFFD}\u{FEFE}\"")
    }

    @Test("every character that needs an escape gets its one escape, wherever it stands among runs copied as they are")
    func escapesAmongPlainRuns() throws {
        let named: [UInt8: String] = [0x08: #"\b"#, 0x09: #"\t"#, 0x0A: #"\n"#, 0x0C: #"\f"#, 0x0D: #"\r"#]
        var text = ""
        var expected = "\""
        for byte in UInt8(0)..<0x80 {
            let character = String(UnicodeScalar(byte))
            let escaped: String
            switch byte {
            case 0x22: escaped = #"\""#
            case 0x5C: escaped = #"\\"#
            case ..<0x20: escaped = named[byte] ?? String(format: "\\u%04x", Int(byte))
            default: escaped = character
            }
            // Each between plain runs of ASCII and CJK, and doubled, so runs of any length meet every escape.
            text += "ab" + character + "书山" + character + character
            expected += "ab" + escaped + "书山" + escaped + escaped
        }
        text += "\u{FEFF}end😀\u{FFFD}\u{FEFF}"
        expected += #"\ufeffend😀\#u{FFFD}\ufeff""#
        let value = JSONValue.string(text)
        #expect(value.serialized() == expected)
        #expect(JSONWriter.bytes(value) == Array(expected.utf8))
        #expect(try JSONParser.parse(value.serialized()).value == value)
        #expect(JSONValue.string("").serialized() == #""""#)
        #expect(JSONValue.string("\"").serialized() == #""\"""#)
        #expect(JSONValue.string("\u{FEFF}").serialized() == #""\ufeff""#)
    }

    @Test("a character that needs an escape is escaped at every offset of the eight-byte words the writer skips whole")
    func escapesAtEveryWordOffset() throws {
        let cases: [(String, String)] = [("\"", #"\""#), ("\\", #"\\"#), ("\n", #"\n"#), ("\u{01}", #"\u0001"#),
                                         ("\u{1F}", #"\u001f"#), ("\u{FEFF}", #"\ufeff"#),
                                         // Kept as they are: DEL, a Latin letter, full-width punctuation (0xEF first byte).
                                         ("\u{7F}", "\u{7F}"), ("é", "é"), ("，", "，"), ("\u{FFFD}", "\u{FFFD}")]
        for (character, escaped) in cases {
            for padding in ["x", "书"] {
                for count in 0..<20 {
                    let before = String(repeating: padding, count: count)
                    let after = String(repeating: "山y", count: 7)
                    let value = JSONValue.string(before + character + after)
                    #expect(value.serialized() == "\"" + before + escaped + after + "\"", "\(character.unicodeScalars.map(\.value)) after \(count) × \(padding)")
                    #expect(try JSONParser.parse(value.serialized()).value == value)
                }
            }
        }
    }

    @Test("Encodable values are written in JSONValue's layout and escaping: sorted keys, \": \", U+FEFF escaped")
    func encodableValuesShareTheOneFormat() throws {
        let pretty = String(decoding: try JSONWriter.bytes(Sample(), style: .pretty), as: UTF8.self)
        let expected = #"""
        {
          "inner": {
            "a": 2,
            "z": 1
          },
          "list": [],
          "text": "\ufeffa/书\ufeff",
          "when": "1970-01-01T00:00:00Z"
        }

        """#
        #expect(pretty == expected)
        #expect(try JSONWriter.string(Sample()) == #"{"inner":{"a":2,"z":1},"list":[],"text":"\ufeffa/书\ufeff","when":"1970-01-01T00:00:00Z"}"#)
    }

    @Test("an Encodable value and the same JSONValue are written byte for byte alike")
    func encodableAndJSONValueWriteTheSameBytes() throws {
        let encodable = try JSONWriter.bytes(Sample(), style: .pretty)
        let value = try JSONParser.parse(encodable).value
        #expect(JSONWriter.bytes(value, style: .pretty) == encodable)
    }
}

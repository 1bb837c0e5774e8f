import Foundation
import Testing
@testable import BookRuleJSON
import TestSupport

// MARK: - Helpers

private func parse(_ text: String, lenient: Bool = false) throws(JSONSyntaxError) -> JSONNode {
    try JSONParser.parse(text, lenient: lenient)
}

/// The error thrown for `text`, or nil if it parses.
private func syntaxError(_ text: String, lenient: Bool = false) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(text, lenient: lenient)
        return nil
    } catch {
        return error
    }
}

private func syntaxError(bytes: [UInt8], lenient: Bool = false) -> JSONSyntaxError? {
    do {
        _ = try JSONParser.parse(bytes, lenient: lenient)
        return nil
    } catch {
        return error
    }
}

/// Swift Testing also declares a `SourceLocation`, so name ours explicitly.
private typealias Location = BookRuleJSON.SourceLocation

private func loc(_ line: Int, _ column: Int) -> Location {
    Location(line: line, column: column)
}

/// One malformed document and the exact error expected for it.
struct JSONErrorCase: Sendable, CustomTestStringConvertible {
    let input: String
    let lenient: Bool
    let line: Int
    let column: Int
    let message: String

    init(_ input: String, lenient: Bool = false, _ line: Int, _ column: Int, _ message: String) {
        self.input = input
        self.lenient = lenient
        self.line = line
        self.column = column
        self.message = message
    }

    var testDescription: String { "\(lenient ? "lenient" : "strict") \(input.debugDescription)" }
}

// MARK: - Values

@Suite struct JSONValueParsingTests {
    @Test func allValueKinds() throws {
        let root = try parse(#"{"n": null, "t": true, "f": false, "i": -277, "d": 1.5e3, "s": "text", "a": [1, [], {}], "o": {"x": "y"}}"#)
        let object = try #require(root.value.objectValue)
        #expect(object["n"]?.value == .null)
        #expect(object["t"]?.value == .bool(true))
        #expect(object["f"]?.value.boolValue == false)
        #expect(object["i"]?.value == .number("-277"))
        #expect(object["d"]?.value == .number("1.5e3"))
        #expect(object["s"]?.value.stringValue == "text")
        let array = try #require(object["a"]?.value.arrayValue)
        #expect(array.count == 3)
        #expect(array[0].value == .number("1"))
        #expect(array[1].value == .array([]))
        #expect(array[2].value == .object(JSONObject()))
        #expect(object["o"]?.value.objectValue?["x"]?.value == .string("y"))
        #expect(object["missing"] == nil)
    }

    @Test func scalarsAtTopLevel() throws {
        #expect(try parse("null").value == .null)
        #expect(try parse(" true ").value == .bool(true))
        #expect(try parse("\"x\"").value == .string("x"))
        #expect(try parse("\t\r\n42\n").value == .number("42"))
    }

    @Test func stringEscapes() throws {
        let node = try parse(#""q\" b\\ s\/ \b\f\n\r\t \u0041\u00e9\u4e66 \u0000""#)
        #expect(node.value == .string("q\" b\\ s/ \u{8}\u{C}\n\r\t Aé书 \u{0}"))
    }

    @Test func surrogatePairsAndLoneSurrogates() throws {
        #expect(try parse(#""\ud83d\ude00""#).value == .string("😀"))
        #expect(try parse(#""\uD83D\uDE00!""#).value == .string("😀!"))
        #expect(try parse(#""\ud83d""#).value == .string("\u{FFFD}"))
        #expect(try parse(#""\ude00x""#).value == .string("\u{FFFD}x"))
        #expect(try parse(#""\ud83d\u0041""#).value == .string("\u{FFFD}A"))
        #expect(try parse(#""\ud83d\ud83d\ude00""#).value == .string("\u{FFFD}😀"))
        #expect(try parse(#""\ud83dx\ude00""#).value == .string("\u{FFFD}x\u{FFFD}"))
    }

    @Test func nonASCIIIsKeptAsIs() throws {
        let node = try parse(#"{"书源名称": "笔趣阁 📚", "é": "ü"}"#)
        #expect(node.value.objectValue?.keys == ["书源名称", "é"])
        #expect(node.value.objectValue?["书源名称"]?.value.stringValue == "笔趣阁 📚")
    }

    @Test func numberLiteralsArePreserved() throws {
        for literal in ["1687595408889", "-277", "1.5e3", "-0", "0", "1E+2", "0.10", "2.50e-7", "12345678901234567890123"] {
            #expect(try parse(literal).value == .number(literal))
            #expect(try parse("[\(literal)]").value.arrayValue?.first?.value == .number(literal))
        }
    }

    @Test func numericConversions() {
        #expect(JSONValue.number("1687595408889").intValue == 1_687_595_408_889)
        #expect(JSONValue.number("-277").intValue == -277)
        #expect(JSONValue.number("1.5e3").intValue == 1500)
        #expect(JSONValue.number("2.0").intValue == 2)
        #expect(JSONValue.number("1.5").intValue == nil)
        #expect(JSONValue.number("1e300").intValue == nil)
        #expect(JSONValue.number("1.5e3").doubleValue == 1500)
        #expect(JSONValue.number("-0.25").doubleValue == -0.25)
        #expect(JSONValue.string("12").intValue == nil)
        #expect(JSONValue.string("12").doubleValue == nil)
        #expect(JSONValue.number("12").stringValue == nil)
        #expect(JSONValue.null.boolValue == nil)
    }

    @Test func typeNames() throws {
        let node = try parse(#"[{}, [], "s", 1, true, null]"#)
        let names = try #require(node.value.arrayValue).map(\.value.typeName)
        #expect(names == ["object", "array", "string", "number", "boolean", "null"])
    }

    @Test func stringAndByteInputsAgree() throws {
        let text = "\u{FEFF}{\"a\": [1, \"书\"]}"
        let fromBytes = try JSONParser.parse(Array(text.utf8))
        let fromString = try JSONParser.parse(text.replacingOccurrences(of: "\u{FEFF}", with: ""))
        #expect(fromBytes == fromString)
        #expect(fromBytes.value.objectValue?["a"]?.location == fromString.value.objectValue?["a"]?.location)
    }

    @Test func byteOrderMarkIsSkipped() throws {
        let node = try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array(#"  {"a": 1}"#.utf8))
        #expect(node.location == loc(1, 3))
        #expect(node.value.objectValue?["a"]?.value == .number("1"))
    }

    @Test func maximumDepthIsAccepted() throws {
        let depth = JSONParser.maximumDepth
        var node = try parse(String(repeating: "[", count: depth) + String(repeating: "]", count: depth))
        var levels = 1
        while let inner = node.value.arrayValue?.first {
            node = inner
            levels += 1
        }
        #expect(levels == depth)
        #expect(node.value == .array([]))
    }
}

// MARK: - Objects

@Suite struct JSONObjectTests {
    @Test func memberOrderAndUnknownKeysArePreserved() throws {
        let node = try parse(#"{"zeta": 1, "bookSourceUrl": "u", "alpha": 2, "customKey": {"x": []}}"#)
        let object = try #require(node.value.objectValue)
        #expect(object.keys == ["zeta", "bookSourceUrl", "alpha", "customKey"])
        #expect(object.members.map(\.value.value.typeName) == ["number", "string", "number", "object"])
    }

    @Test func duplicateKeysKeepAllMembersAndLastWins() throws {
        let object = try #require(try parse(#"{"b": 1, "a": 2, "b": 3}"#).value.objectValue)
        #expect(object.keys == ["b", "a", "b"])
        #expect(object.members.count == 3)
        #expect(object["b"]?.value == .number("3"))
        #expect(object["b"]?.location == loc(1, 23))
        #expect(object["a"]?.value == .number("2"))
    }

    @Test func equalityIgnoresLocationsButNotOrder() throws {
        #expect(try parse(#"{"a": [1, 2]}"#) == parse("{\n  \"a\" : [\n 1,\n 2 ]\n}"))
        #expect(try parse(#"{"a": 1, "b": 2}"#) != parse(#"{"b": 2, "a": 1}"#))
        #expect(try parse(#"{"a": 1}"#) != parse(#"{"a": 1, "a": 1}"#))
        #expect(try parse(#"{"a": 1}"#) != parse(#"{"a": "1"}"#))
        let one = JSONNode(.string("x"), location: loc(1, 1))
        let two = JSONNode(.string("x"), location: loc(9, 9))
        #expect(one == two)
        #expect(one != JSONNode(.string("y"), location: loc(1, 1)))
    }
}

// MARK: - Locations

@Suite struct JSONLocationTests {
    @Test func sourceLocationDescription() {
        #expect(loc(3, 5).description == "line 3, column 5")
        #expect(JSONSyntaxError(location: loc(3, 17), message: "boom").description == "line 3, column 17: boom")
    }

    @Test func nestedValueLocations() throws {
        let text = """
        [
          {
            "name": "a",
            "rules": {"toc": [1, {"x": null}]}
          },
          true
        ]
        """
        let root = try parse(text)
        #expect(root.location == loc(1, 1))
        let array = try #require(root.value.arrayValue)
        #expect(array[0].location == loc(2, 3))
        #expect(array[1].location == loc(6, 3))
        let source = try #require(array[0].value.objectValue)
        #expect(source["name"]?.location == loc(3, 13))
        let rules = try #require(source["rules"])
        #expect(rules.location == loc(4, 14))
        let toc = try #require(rules.value.objectValue?["toc"])
        #expect(toc.location == loc(4, 22))
        let tocItems = try #require(toc.value.arrayValue)
        #expect(tocItems[0].location == loc(4, 23))
        #expect(tocItems[1].location == loc(4, 26))
        #expect(tocItems[1].value.objectValue?["x"]?.location == loc(4, 32))
    }

    @Test func columnsCountUnicodeScalarsAfterCJKText() throws {
        let object = try #require(try parse(#"{"名字": "书", "x": 1, "e": "😀", "y": [2]}"#).value.objectValue)
        #expect(object["名字"]?.location == loc(1, 8))
        #expect(object["x"]?.location == loc(1, 18))
        #expect(object["e"]?.location == loc(1, 26))
        #expect(object["y"]?.location == loc(1, 36))
        #expect(object["y"]?.value.arrayValue?.first?.location == loc(1, 37))
    }

    @Test func crlfAndLoneCRLineEndings() throws {
        let crlf = try #require(try parse("[\r\n  1,\r\n  \"书\",\r\n\r\n    null\r\n]").value.arrayValue)
        #expect(crlf.map(\.location) == [loc(2, 3), loc(3, 3), loc(5, 5)])
        let cr = try #require(try parse("[\r1,\r\r  2]").value.arrayValue)
        #expect(cr.map(\.location) == [loc(2, 1), loc(4, 3)])
    }

    @Test func errorLocationAfterCRLFAndCJK() {
        let error = syntaxError("{\r\n  \"书名\": \"三体\"\r\n  \"x\": 1\r\n}")
        #expect(error?.location == loc(3, 3))
        #expect(error?.message == "expected ',' or '}' after an object member, found '\"'")
    }

    @Test func errorAfterManyValuesOnOneLine() {
        // Errors may point backwards (to where a string started) after later values were located.
        let error = syntaxError(#"[1, 2, "书", 3, "open"#)
        #expect(error?.location == loc(1, 16))
    }
}

// MARK: - Errors

@Suite struct JSONSyntaxErrorTests {
    static let cases: [JSONErrorCase] = [
        // unexpected character / missing separators
        JSONErrorCase(#"{"a": 1 "b": 2}"#, 1, 9, #"expected ',' or '}' after an object member, found '"'"#),
        JSONErrorCase("[1 2]", 1, 4, "expected ',' or ']' after an array element, found '2'"),
        JSONErrorCase("[1}", 1, 3, "expected ',' or ']' after an array element, found '}'"),
        JSONErrorCase("[1, @]", 1, 5, "expected a value, found '@'"),
        JSONErrorCase("[1，2]", 1, 3, "expected ',' or ']' after an array element, found '，' (U+FF0C)"),
        JSONErrorCase("{\"a\" 1}", 1, 6, #"expected ':' after the key "a", found '1'"#),
        JSONErrorCase(#"{"a\"b\n" 1}"#, 1, 11, #"expected ':' after the key "a\"b\n", found '1'"#),
        JSONErrorCase("{1: 2}", 1, 2, "keys must be in double quotes, found unquoted '1'"),
        JSONErrorCase("{,}", 1, 2, "expected a key in double quotes or '}', found ','"),
        JSONErrorCase("{\"a\": 1, ]", 1, 10, "expected a key in double quotes, found ']'"),
        JSONErrorCase("[\u{0B}]", 1, 2, "expected a value, found U+000B"),
        JSONErrorCase("[tru]", 1, 2, "expected a value, found 'tru' (strings must be in quotes; the only literals are true, false and null)"),
        JSONErrorCase("[True]", 1, 2, "expected a value, found 'True' (strings must be in quotes; the only literals are true, false and null)"),
        JSONErrorCase("[nullx]", 1, 2, "expected a value, found 'nullx' (strings must be in quotes; the only literals are true, false and null)"),
        // unexpected end of input
        JSONErrorCase("", 1, 1, "unexpected end of input, expected a value (the input is empty)"),
        JSONErrorCase("  \n ", 2, 2, "unexpected end of input, expected a value"),
        JSONErrorCase("[1, 2", 1, 6, "unexpected end of input, expected ',' or ']' after an array element (the array starting at line 1, column 1 is not closed)"),
        JSONErrorCase("[\n {\"a\": 1", 2, 9, "unexpected end of input, expected ',' or '}' after an object member (the object starting at line 2, column 2 is not closed)"),
        JSONErrorCase("{\"a\": 1,", 1, 9, "unexpected end of input, expected a key in double quotes (the object starting at line 1, column 1 is not closed)"),
        JSONErrorCase("{\"a\"", 1, 5, "unexpected end of input, expected ':' after the key \"a\""),
        JSONErrorCase("{\"a\":", 1, 6, "unexpected end of input, expected a value"),
        // strings
        JSONErrorCase("{\"a\": \"abc", 1, 7, #"unterminated string: the input ends before the closing '"'"#),
        JSONErrorCase("[\"abc\\", 1, 2, #"unterminated string: the input ends before the closing '"'"#),
        JSONErrorCase(#"["a\qb"]"#, 1, 4, #"invalid escape '\q' in string; valid escapes are \" \\ \/ \b \f \n \r \t and \uXXXX"#),
        JSONErrorCase(#"["it\'s"]"#, 1, 5, #"invalid escape '\'' in string; valid escapes are \" \\ \/ \b \f \n \r \t and \uXXXX"#),
        JSONErrorCase(#"["\书"]"#, 1, 3, #"invalid escape '\书' (U+4E66) in string; valid escapes are \" \\ \/ \b \f \n \r \t and \uXXXX"#),
        JSONErrorCase(#"["\u12G4"]"#, 1, 3, #"invalid escape '\u12': expected 4 hex digits after '\u', found 'G4'"#),
        JSONErrorCase(#"["\u12"#, 1, 3, #"invalid escape '\u12': expected 4 hex digits after '\u', found the end of input"#),
        JSONErrorCase("{\n  \"a\": \"abc\n\"}", 2, 12, #"line break inside a string; use \n to write one, or add the missing closing quote (the string starts at line 2, column 8)"#),
        JSONErrorCase("[\"a\r\nb\"]", 1, 4, #"line break inside a string; use \n to write one, or add the missing closing quote (the string starts at line 1, column 2)"#),
        JSONErrorCase("[\"a\tb\"]", 1, 4, #"raw control character U+0009 in string; use \t"#),
        JSONErrorCase("[\"a\u{1}b\"]", 1, 4, #"raw control character U+0001 in string; use \u0001"#),
        JSONErrorCase("[\"a\u{1F}b\"]", 1, 4, #"raw control character U+001F in string; use \u001f"#),
        // numbers
        JSONErrorCase("012", 1, 1, "invalid number '012': leading zeros are not allowed"),
        JSONErrorCase("[-012]", 1, 2, "invalid number '-012': leading zeros are not allowed"),
        JSONErrorCase("[-]", 1, 3, "expected a digit after '-' in a number, found ']'"),
        JSONErrorCase("[1.]", 1, 4, "expected a digit after '.' in a number, found ']'"),
        JSONErrorCase("1.", 1, 3, "unexpected end of input, expected a digit after '.' in a number"),
        JSONErrorCase("[1e+]", 1, 5, "expected a digit in the exponent of a number, found ']'"),
        JSONErrorCase("[.5]", 1, 2, "expected a value, found '.'"),
        JSONErrorCase("[+1]", 1, 2, "expected a value, found '+'"),
        // trailing commas, lenient forms in strict mode
        JSONErrorCase("[1, 2,]", 1, 6, "trailing comma is not allowed; remove this ',' before ']'"),
        JSONErrorCase("{\"a\": 1,\n}", 1, 8, "trailing comma is not allowed; remove this ',' before '}'"),
        JSONErrorCase("{'a': 1}", 1, 2, "single-quoted strings are not allowed in JSON; use double quotes"),
        JSONErrorCase("['a']", 1, 2, "single-quoted strings are not allowed in JSON; use double quotes"),
        JSONErrorCase("{method: \"POST\"}", 1, 2, "keys must be in double quotes, found unquoted 'method'"),
        JSONErrorCase("[1, // two\n 2]", 1, 5, "comments are not allowed in JSON"),
        JSONErrorCase("/* c */ 1", 1, 1, "comments are not allowed in JSON"),
        JSONErrorCase("[1 /", 1, 4, "expected ',' or ']' after an array element, found '/'"),
        // extra data
        JSONErrorCase("{} {}", 1, 4, "extra data after the top-level value, found '{'"),
        JSONErrorCase("[1]\n]", 2, 1, "extra data after the top-level value, found ']'"),
        JSONErrorCase("1 2", 1, 3, "extra data after the top-level value, found '2'"),
        JSONErrorCase("\"a\" x", 1, 5, "extra data after the top-level value, found 'x'"),
        // lenient mode errors
        JSONErrorCase("[1 /* never closed", lenient: true, 1, 4, "unterminated comment: the input ends before the closing '*/'"),
        JSONErrorCase("{a: 'b}", lenient: true, 1, 5, #"unterminated string: the input ends before the closing "'""#),
        JSONErrorCase(#"{"a": b}"#, 1, 7, "expected a value, found 'b' (strings must be in quotes; the only literals are true, false and null)"),
        JSONErrorCase("Mozilla/5.0", lenient: true, 1, 1, "expected a value, found 'Mozilla' (strings must be in quotes; the only literals are true, false and null)"),
        JSONErrorCase("{a: b/c}", lenient: true, 1, 6, "expected ',' or '}' after an object member, found '/'"),
        JSONErrorCase("{a=b: 1}", lenient: true, 1, 5, "expected ',' or '}' after an object member, found ':'"),
        JSONErrorCase("{\"a\": \"b\n", lenient: true, 1, 7, #"unterminated string: the input ends before the closing '"'"#),
        JSONErrorCase("[1,,]", lenient: true, 1, 4, "expected a value, found ','"),
        JSONErrorCase("{,}", lenient: true, 1, 2, "expected a key in double quotes or '}', found ','"),
        JSONErrorCase("[1 / 2]", lenient: true, 1, 4, "expected ',' or ']' after an array element, found '/'"),
        JSONErrorCase(#"['\q']"#, lenient: true, 1, 3, #"invalid escape '\q' in string; valid escapes are \" \' \\ \/ \b \f \n \r \t and \uXXXX"#),
    ]

    @Test(arguments: cases)
    func exactMessageAndLocation(_ testCase: JSONErrorCase) throws {
        let error = try #require(syntaxError(testCase.input, lenient: testCase.lenient))
        #expect(error.message == testCase.message)
        #expect(error.location == loc(testCase.line, testCase.column))
    }

    @Test func descriptionNamesLineAndColumn() throws {
        let error = try #require(syntaxError("{\n  \"a\": 1,\n  \"b\": 2\n  \"c\": 3\n}"))
        #expect(error.description == #"line 4, column 3: expected ',' or '}' after an object member, found '"'"#)
    }

    @Test func nestingTooDeep() throws {
        let depth = JSONParser.maximumDepth + 1
        let error = try #require(syntaxError(String(repeating: "[", count: depth) + String(repeating: "]", count: depth)))
        #expect(error.message == "nesting too deep: more than 512 nested arrays and objects")
        #expect(error.location == loc(1, depth))
        let objects = try #require(syntaxError(String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)))
        #expect(objects.location == loc(1, 5 * (depth - 1) + 1))
        #expect(objects.message.hasPrefix("nesting too deep"))
    }

    @Test func hostileDeepInputFailsWithoutCrashing() throws {
        let error = try #require(syntaxError(String(repeating: "[{\"k\":", count: 200_000)))
        #expect(error.message == "nesting too deep: more than 512 nested arrays and objects")
        #expect(error.location == loc(1, 6 * 256 + 1))
    }

    @Test func invalidUTF8IsReportedAtTheOffendingByte() throws {
        let stray = try #require(syntaxError(bytes: Array("[\"ab".utf8) + [0xFF] + Array("\"]".utf8)))
        #expect(stray.location == loc(1, 5))
        #expect(stray.message == "invalid UTF-8 byte 0xFF; the file must be saved as UTF-8")
        // "书" in GBK is CA E9: the second byte cannot continue the first.
        let gbk = try #require(syntaxError(bytes: Array("{\"名\": \"".utf8) + [0xCA, 0xE9] + Array("\"}".utf8)))
        #expect(gbk.location == loc(1, 9))
        #expect(gbk.message == "invalid UTF-8 byte 0xE9; the file must be saved as UTF-8")
        let surrogate = try #require(syntaxError(bytes: [0x22, 0xED, 0xA0, 0x80, 0x22]))
        #expect(surrogate.location == loc(1, 3))
        #expect(surrogate.message == "invalid UTF-8 byte 0xA0; the file must be saved as UTF-8")
        let cut = try #require(syntaxError(bytes: [0x22, 0xE4, 0xB8]))
        #expect(cut.location == loc(1, 2))
        #expect(cut.message == "invalid UTF-8: byte sequence cut off by the end of input; the file must be saved as UTF-8")
        let outside = try #require(syntaxError(bytes: [0x5B, 0x31, 0x2C, 0xC0, 0x5D]))
        #expect(outside.location == loc(1, 4))
        #expect(outside.message == "invalid UTF-8 byte 0xC0; the file must be saved as UTF-8")
        let inComment = try #require(syntaxError(bytes: Array("[1 // ".utf8) + [0xFE] + Array("\n]".utf8), lenient: true))
        #expect(inComment.location == loc(1, 7))
        #expect(inComment.message == "invalid UTF-8 byte 0xFE; the file must be saved as UTF-8")
    }
}

// MARK: - Lenient mode

@Suite struct JSONLenientTests {
    @Test func urlOptionObject() throws {
        let text = "{'method':'POST', body: 'k={{key}}', }"
        let object = try #require(try parse(text, lenient: true).value.objectValue)
        #expect(object.keys == ["method", "body"])
        #expect(object["method"]?.value == .string("POST"))
        #expect(object["body"]?.value == .string("k={{key}}"))
        #expect(object["body"]?.location == loc(1, 25))
        #expect(syntaxError(text) != nil)
    }

    @Test func singleQuotedStrings() throws {
        let node = try parse(#"['it\'s "quoted"', "it\'s", '\u4e66\n']"#, lenient: true)
        #expect(node.value == .array([
            JSONNode(.string("it's \"quoted\""), location: loc(1, 2)),
            JSONNode(.string("it's"), location: loc(1, 1)),
            JSONNode(.string("书\n"), location: loc(1, 1)),
        ]))
    }

    @Test func unquotedKeys() throws {
        let object = try #require(try parse("{$a_1: 1, _b: 2, c$: 3, 9lives: 4, headers: {UserAgent: 'x'}}", lenient: true).value.objectValue)
        #expect(object.keys == ["$a_1", "_b", "c$", "9lives", "headers"])
        #expect(object["headers"]?.value.objectValue?["UserAgent"]?.value == .string("x"))
    }

    /// Legado reads `@put:{bid:id}`, URL options and headers with Gson's lenient reader, which takes an
    /// unquoted word as a string, up to whitespace or one of `/ \ ; # = { } [ ] : ,`; `true`, `false` and `null`
    /// keep their meaning.
    @Test func unquotedValuesAndKeysAsGsonReadsThem() throws {
        let object = try #require(try parse("{bid:id, url: $.data.link, User-Agent:x, 名:值, on: true, no: null}",
                                            lenient: true).value.objectValue)
        #expect(object.keys == ["bid", "url", "User-Agent", "名", "on", "no"])
        #expect(object["bid"]?.value == .string("id"))
        #expect(object["url"]?.value == .string("$.data.link"))
        #expect(object["User-Agent"]?.value == .string("x"))
        #expect(object["名"]?.value == .string("值"))
        #expect(object["on"]?.value == .bool(true))
        #expect(object["no"]?.value == .null)
        // Gson's other leniencies that sources rely on: `;` between members, `=` or `=>` for `:`, raw line breaks.
        let gsonish = try #require(try parse("{\"method\":\"POST\"; type=json, n => 2, body: \"a\nb\"}",
                                             lenient: true).value.objectValue)
        #expect(gsonish.keys == ["method", "type", "n", "body"])
        #expect(gsonish["type"]?.value == .string("json"))
        #expect(gsonish["body"]?.value == .string("a\nb"))
        #expect(try parse("[1; 2]", lenient: true) == parse("[1, 2]"))
        // A template as a value stays the template (Legado substitutes it before reading the JSON).
        let body = try #require(try parse(#"{"keyword":{{key}}, "page":{{page}}}"#, lenient: true).value.objectValue)
        #expect(body["keyword"]?.value == .string("{{key}}"))
        #expect(body["page"]?.value == .string("{{page}}"))
        #expect(syntaxError(#"{"k":{{key}"#, lenient: true) != nil)
        // A bracket ends the word (as in Gson), so a JSONPath with one must be quoted.
        #expect(syntaxError("{url: $.data[0]}", lenient: true) != nil)
    }

    @Test func trailingCommas() throws {
        #expect(try parse("[1, [2,], {\"a\": 3,},]", lenient: true) == parse("[1, [2], {\"a\": 3}]"))
    }

    @Test func commentsAndTheirEffectOnLocations() throws {
        let text = """
        // leading comment with 中文
        {
          /* block
             comment */ "a": 1, // trailing
          "b": /**/ [2 /* * / */, 3]
        }/* end */
        """
        let root = try parse(text, lenient: true)
        #expect(root.location == loc(2, 1))
        let object = try #require(root.value.objectValue)
        #expect(object.keys == ["a", "b"])
        #expect(object["a"]?.location == loc(4, 22))
        #expect(object["b"]?.location == loc(5, 13))
        #expect(object["b"]?.value.arrayValue?.map(\.location) == [loc(5, 14), loc(5, 27)])
        #expect(syntaxError(text)?.message == "comments are not allowed in JSON")
    }

    @Test func lenientAcceptsStrictJSONUnchanged() throws {
        let text = #"{"a": [1, -2.5e+3, true, null, "x\/y"], "b": {}}"#
        #expect(try parse(text, lenient: true) == parse(text))
    }
}

// MARK: - Serialization

@Suite struct JSONSerializationTests {
    @Test func compactOutputIsExact() throws {
        let node = try parse(#"{ "b" : [1, 2.50, "x\ny", -0], "a": {"k": null, "t": true, "f": false}, "e": [], "o": {} }"#)
        #expect(node.value.serialized() == #"{"b":[1,2.50,"x\ny",-0],"a":{"k":null,"t":true,"f":false},"e":[],"o":{}}"#)
    }

    @Test func prettyOutputIsExact() throws {
        let node = try parse(#"{"name": "书", "list": [1, {"k": []}], "empty": {}}"#)
        let expected = """
        {
          "name": "书",
          "list": [
            1,
            {
              "k": []
            }
          ],
          "empty": {}
        }
        """
        #expect(node.value.serialized(pretty: true) == expected)
    }

    @Test func escapesControlCharactersQuotesAndBackslashes() {
        let value = JSONValue.string("\"\\/\u{0}\u{1}\u{8}\u{C}\n\r\t\u{1F}\u{7F}é书😀")
        #expect(value.serialized() == #""\"\\/\u0000\u0001\b\f\n\r\t\u001f"# + "\u{7F}é书😀\"")
    }

    @Test func keysAreEscapedAndDuplicatesKept() throws {
        let node = try parse(#"{"a\"b": 1, "a\"b": 2}"#)
        #expect(node.value.serialized() == #"{"a\"b":1,"a\"b":2}"#)
    }

    @Test func invalidHandBuiltNumberBecomesNull() {
        #expect(JSONValue.array([JSONNode(.number("NaN"), location: loc(1, 1)), JSONNode(.number("01"), location: loc(1, 1))]).serialized() == "[null,null]")
        #expect(JSONValue.number("-1.5E-7").serialized() == "-1.5E-7")
    }

    @Test(arguments: [
        #"{"a": [1, 2.5e-3, "tab\there", "\u0001\ud83d\ude00"], "b": {"c": null, "d": [true, false, {}]}, "书": "三体"}"#,
        #"[[[]], {}, "", 0, -0.0, 1E+300, "\\\"\/"]"#,
        #""just a string""#,
    ])
    func roundTrip(_ text: String) throws {
        let original = try parse(text)
        for pretty in [false, true] {
            let output = original.value.serialized(pretty: pretty)
            let reparsed = try parse(output)
            #expect(reparsed == original)
            #expect(reparsed.value.serialized(pretty: pretty) == output)
        }
    }

    @Test func lenientInputSerializesToStrictJSON() throws {
        let node = try parse("{'method':'POST', body: 'k={{key}}', /* c */ }", lenient: true)
        let output = node.value.serialized()
        #expect(output == #"{"method":"POST","body":"k={{key}}"}"#)
        #expect(try parse(output) == node)
    }
}

// MARK: - Real-world corpus

private let corpusDirectory = SharedCorpus.path("legado")

private func corpusFiles() -> [String] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: corpusDirectory)) ?? []
    return names.filter { $0.hasSuffix(".json") }.sorted()
}

/// An independent parse by Foundation's `JSONDecoder`, used as a reference.
/// (`JSONSerialization` is not used: on Linux it drops a U+FEFF that follows an escape,
/// which one corpus file contains.)
private enum ReferenceValue: Decodable {
    case null, bool(Bool), number(Double), string(String), array([ReferenceValue]), object([String: ReferenceValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let flag = try? container.decode(Bool.self) {
            self = .bool(flag)
        } else if let number = try? container.decode(Double.self) {
            self = .number(number)
        } else if let text = try? container.decode(String.self) {
            self = .string(text)
        } else if let elements = try? container.decode([ReferenceValue].self) {
            self = .array(elements)
        } else {
            self = .object(try container.decode([String: ReferenceValue].self))
        }
    }
}

/// Describes the first difference between our tree and the reference (objects: last duplicate wins), or nil.
private func difference(_ node: JSONNode, _ reference: ReferenceValue, path: String) -> String? {
    switch (node.value, reference) {
    case (.null, .null):
        return nil
    case (.bool(let flag), .bool(let other)):
        return flag == other ? nil : "\(path): \(flag) vs \(other)"
    case (.number, .number(let other)):
        return node.value.doubleValue == other ? nil : "\(path): \(node.value) vs \(other)"
    case (.string(let text), .string(let other)):
        return Array(text.unicodeScalars) == Array(other.unicodeScalars) ? nil : "\(path): strings differ"
    case (.array(let elements), .array(let others)):
        guard elements.count == others.count else { return "\(path): array lengths differ" }
        for index in elements.indices {
            if let problem = difference(elements[index], others[index], path: "\(path)[\(index)]") { return problem }
        }
        return nil
    case (.object(let object), .object(let others)):
        let keys = Set(object.keys)
        guard keys.count == others.count else { return "\(path): key sets differ" }
        for key in keys {
            guard let value = object[key], let other = others[key] else { return "\(path).\(key): missing" }
            if let problem = difference(value, other, path: "\(path).\(key)") { return problem }
        }
        return nil
    default:
        return "\(path): \(node.value.typeName) vs \(reference)"
    }
}

@Suite struct JSONCorpusTests {
    @Test(.enabled(if: !corpusFiles().isEmpty, "no Legado corpus at \(corpusDirectory); skipping"))
    func everyLegadoCorpusFileParses() async throws {
        try await offCooperativePool {
            let files = corpusFiles()
            #expect(files.count >= 1)
            for name in files {
                let data = try Data(contentsOf: URL(fileURLWithPath: "\(corpusDirectory)/\(name)"))
                let root: JSONNode
                do {
                    root = try JSONParser.parse([UInt8](data))
                } catch {
                    Issue.record("\(name): \(error)")
                    continue
                }
                let sources = try #require(root.value.arrayValue, "\(name) is not an array")
                #expect(!sources.isEmpty, "\(name) is empty")
                for source in sources {
                    #expect(source.value.objectValue?["bookSourceUrl"]?.value.stringValue != nil,
                            "\(name): source at \(source.location) has no bookSourceUrl")
                }
                let reference = try JSONDecoder().decode(ReferenceValue.self, from: data)
                let problem = difference(root, reference, path: name)
                #expect(problem == nil)
                #expect(try JSONParser.parse(root.value.serialized()) == root, "\(name) does not round-trip")
            }
        }
    }
}

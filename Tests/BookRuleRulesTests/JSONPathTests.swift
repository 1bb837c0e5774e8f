import Testing
@testable import BookRuleJSON
@testable import BookRuleRules
import TestSupport

// MARK: - Fixtures

/// A search response shaped like the novel APIs real book sources read.
private let novelJSON = #"""
{
  "code": 0,
  "msg": "success",
  "data": {
    "total": 3,
    "featured": 1002,
    "list": [
      {"bookId": 1001, "bookName": "斗破苍穹", "author": "天蚕土豆", "cover": "https://img.example.com/1001.jpg",
       "score": 9.5, "isVip": 0, "status": "end", "tags": ["玄幻", "热血"], "finished": true, "intro": null,
       "lastChapter": {"name": "大结局", "id": 1623}},
      {"bookId": 1002, "bookName": "凡人修仙传", "author": "忘语", "cover": "https://img.example.com/1002.jpg",
       "score": 9.1, "isVip": 1, "status": "serial", "tags": ["仙侠"], "finished": false,
       "intro": "一个普通的山村穷小子", "lastChapter": {"name": "第两千四百四十六章", "id": 2446}},
      {"bookId": 1003, "bookName": "诡秘之主", "author": "爱潜水的乌贼",
       "score": 9.8, "isVip": "0", "status": "end", "tags": [], "finished": true, "intro": "蒸汽与机械的浪潮中"}
    ]
  },
  "search": [{"name": "推荐", "books": [{"name": "A"}]}]
}
"""#

private func json(_ text: String) throws -> JSONValue {
    try JSONParser.parse(text).value
}

private func novel() throws -> JSONValue {
    try json(novelJSON)
}

/// The results of `path` on `document`, as rule text.
private func texts(_ path: String, _ document: JSONValue) throws -> [String] {
    try JSONPath(path).evaluate(document).map(\.ruleText)
}

/// The `bookName`s of the books a filter keeps.
private func names(_ filter: String) throws -> [String] {
    try texts("$.data.list[?(\(filter))].bookName", novel())
}

private func compileError(_ expression: String) -> JSONPathError? {
    do {
        _ = try JSONPath(expression)
        return nil
    } catch {
        return error
    }
}

// MARK: - Paths

@Suite("JSONPath paths")
struct JSONPathPathTests {
    @Test func definitePathsGiveTheValueItself() throws {
        let document = try novel()
        let code = try JSONPath("$.code")
        #expect(code.isDefinite)
        #expect(code.evaluate(document) == [.number("0")])
        #expect(try texts("$.msg", document) == ["success"])
        #expect(try texts("$.data.list[0].bookName", document) == ["斗破苍穹"])
        #expect(try texts("$['data'][\"total\"]", document) == ["3"])
        #expect(try texts("$.data.list[1]['lastChapter'].name", document) == ["第两千四百四十六章"])
        // A definite path to an array yields that one array.
        let list = try JSONPath("$.data.list").evaluate(document)
        #expect(list.count == 1)
        #expect(list.first?.arrayValue?.count == 3)
        #expect(try JSONPath("$").evaluate(document) == [document])
    }

    @Test func indefinitePathsGiveEveryMatch() throws {
        let document = try novel()
        let path = try JSONPath("$.data.list[*].bookName")
        #expect(!path.isDefinite)
        #expect(path.evaluate(document).map(\.ruleText) == ["斗破苍穹", "凡人修仙传", "诡秘之主"])
        #expect(try JSONPath("$.data.list[*]").evaluate(document).count == 3)
        #expect(try texts("$..search[*].name", document) == ["推荐"])
        #expect(try texts("$.data.list[*].tags[*]", document) == ["玄幻", "热血", "仙侠"])
    }

    @Test func definitenessFollowsJayway() throws {
        let definite = ["$", "$.a", "$['a'].b[0]", "$.a[-1]", "$.a['x','y']", "@.a", "a.b"]
        let indefinite = ["$..a", "$.*", "$.a[*]", "$.a[0,1]", "$.a[0:2]", "$.a[?(@.x)]", "$['x','y'].a"]
        for expression in definite {
            #expect(try JSONPath(expression).isDefinite, "\(expression)")
        }
        for expression in indefinite {
            #expect(try !JSONPath(expression).isDefinite, "\(expression)")
        }
    }

    @Test func missingKeysAndWrongKindsGiveNothing() throws {
        let document = try novel()
        #expect(try texts("$.data.missing", document) == [])
        #expect(try texts("$.missing.deeper[0]", document) == [])
        #expect(try texts("$.code.x", document) == [])
        #expect(try texts("$.msg[0]", document) == [])
        // The third book has no cover: it is skipped, not an error.
        #expect(try texts("$.data.list[*].cover", document)
            == ["https://img.example.com/1001.jpg", "https://img.example.com/1002.jpg"])
        // A name never maps over an array (Jayway).
        #expect(try texts("$.data.list.bookName", document) == [])
        // A JSON null is a value.
        #expect(try JSONPath("$.data.list[0].intro").evaluate(document) == [.null])
    }

    @Test func pathsWithoutDollarAreReadFromTheRoot() throws {
        let document = try novel()
        #expect(try texts("data.total", document) == ["3"])
        #expect(try texts("@.data.featured", document) == ["1002"])
        #expect(try texts("  $.msg  ", document) == ["success"])
    }

    @Test func topLevelArrays() throws {
        let document = try json(#"[{"name": "甲", "id": 1}, {"name": "乙", "id": 2}]"#)
        #expect(try texts("$[0].name", document) == ["甲"])
        #expect(try texts("$[*].name", document) == ["甲", "乙"])
        #expect(try texts("$[-1].id", document) == ["2"])
        #expect(try texts("$.[1].name", document) == ["乙"])
    }

    @Test func indexesCountFromTheEndWhenNegative() throws {
        let document = try novel()
        #expect(try texts("$.data.list[-1].bookName", document) == ["诡秘之主"])
        #expect(try texts("$.data.list[-3].bookName", document) == ["斗破苍穹"])
        #expect(try texts("$.data.list[-4].bookName", document) == [])
        #expect(try texts("$.data.list[3].bookName", document) == [])
        #expect(try texts("$.data.list[2,0].bookName", document) == ["诡秘之主", "斗破苍穹"])
        #expect(try texts("$.data.list[0, -1, 7].bookId", document) == ["1001", "1003"])
    }

    @Test(arguments: [
        ("[0:2]", ["0", "1"]),
        ("[1:]", ["1", "2", "3", "4"]),
        ("[:2]", ["0", "1"]),
        ("[-2:]", ["3", "4"]),
        ("[:-1]", ["0", "1", "2", "3"]),
        ("[-3:-1]", ["2", "3"]),
        ("[1:-1]", []),  // Jayway: a negative end after a non-negative start selects nothing
        ("[-2:2]", ["3", "4", "0", "1"]),  // Jayway's arithmetic, kept as is
        ("[3:10]", ["3", "4"]),
        ("[5:]", []),
        ("[-9:]", ["0", "1", "2", "3", "4"]),
        ("[2:2]", []),
        ("[::2]", ["0", "2", "4"]),
        ("[1:4:2]", ["1", "3"]),
        ("[::-1]", ["4", "3", "2", "1", "0"]),
        ("[3:0:-2]", ["3", "1"]),
        ("[1:-1:1]", ["1", "2", "3"]),  // with a step: RFC 9535 semantics
        ("[::0]", []),
        ("[ 0 : 2 ]", ["0", "1"]),
    ])
    func slices(slice: String, expected: [String]) throws {
        let document = try json("[0, 1, 2, 3, 4]")
        #expect(try texts("$" + slice, document) == expected)
        #expect(try texts("$" + slice, json("[]")) == [])
    }

    @Test func realSourceSlice() throws {
        #expect(try texts("$.data.list[0:2].bookName", novel()) == ["斗破苍穹", "凡人修仙传"])
    }

    @Test func wildcardsKeepDocumentOrder() throws {
        let document = try novel()
        #expect(try texts("$.data.list[0].lastChapter.*", document) == ["大结局", "1623"])
        #expect(try texts("$.data.*", document).prefix(2) == ["3", "1002"])
        #expect(try JSONPath("$.*").evaluate(document).count == 4)
        #expect(try texts("$.data.list[0].tags[*]", document) == ["玄幻", "热血"])
        #expect(try texts("$.msg.*", document) == [])
    }

    @Test func duplicateKeysActLikeAnOrderedMap() throws {
        let document = try json(#"{"a": 1, "b": 2, "a": 3}"#)
        #expect(try texts("$.a", document) == ["3"])
        #expect(try texts("$.*", document) == ["3", "2"])
    }

    @Test func bracketNames() throws {
        let document = try json(#"{"my key": {"it's": 1, "q\"": 2}, "a.b": 3}"#)
        #expect(try texts("$['my key']['it\\'s']", document) == ["1"])
        #expect(try texts(#"$["my key"]["q\""]"#, document) == ["2"])
        #expect(try texts("$['a.b']", document) == ["3"])
        #expect(try texts(#"$['\u0061.b']"#, document) == ["3"])
    }

    @Test func severalNamesMergeOnTheLastStep() throws {
        let document = try novel()
        let merged = try JSONPath("$.data.list[0]['bookName','author','missing']")
        #expect(merged.isDefinite)
        #expect(merged.evaluate(document).map(\.ruleText) == [#"{"bookName":"斗破苍穹","author":"天蚕土豆"}"#])
        #expect(try texts("$.data.list[*]['author', 'bookName']", document) == [
            #"{"author":"天蚕土豆","bookName":"斗破苍穹"}"#,
            #"{"author":"忘语","bookName":"凡人修仙传"}"#,
            #"{"author":"爱潜水的乌贼","bookName":"诡秘之主"}"#,
        ])
        // Not the last step: each name is followed in turn.
        #expect(try texts("$.data.list[1]['lastChapter','missing','lastChapter'].id", document) == ["2446", "2446"])
    }
}

// MARK: - Deep scan

@Suite("JSONPath deep scan")
struct JSONPathDeepScanTests {
    @Test func deepScanIsPreOrderInDocumentOrder() throws {
        #expect(try texts("$..name", novel()) == ["大结局", "第两千四百四十六章", "推荐", "A"])
        // An object's own member comes before its children's, even when written after them.
        let nested = try json(#"{"child": {"name": "inner", "list": [{"name": "deepest"}]}, "name": "outer"}"#)
        #expect(try texts("$..name", nested) == ["outer", "inner", "deepest"])
        #expect(try texts("$..['name']", nested) == ["outer", "inner", "deepest"])
        #expect(try texts("$.child..name", nested) == ["inner", "deepest"])
    }

    @Test func deepWildcardListsChildrenBeforeDescending() throws {
        let document = try json(#"{"a": {"b": 1}, "c": [2, 3]}"#)
        #expect(try texts("$..*", document) == [#"{"b":1}"#, "[2,3]", "1", "2", "3"])
        #expect(try texts("$..[*]", document) == [#"{"b":1}"#, "[2,3]", "1", "2", "3"])
    }

    @Test func deepScanWithIndexesAndFilters() throws {
        let document = try novel()
        #expect(try texts("$..bookName", document) == ["斗破苍穹", "凡人修仙传", "诡秘之主"])
        #expect(try texts("$..tags[0]", document) == ["玄幻", "仙侠"])
        #expect(try texts("$..list[-1].bookId", document) == ["1003"])
        #expect(try texts("$..[?(@.isVip == 1)].bookName", document) == ["凡人修仙传"])
        #expect(try texts("$..[?(@.id > 2000)].name", document) == ["第两千四百四十六章"])
        #expect(try texts("$..missing", document) == [])
    }

    @Test func deepIndexFollowedByMoreStepsReadsEveryElementAsJaywayDoes() throws {
        let document = try json(#"{"a": [{"x": 1}, {"x": 2}]}"#)
        #expect(try texts("$..[0].x", document) == ["1", "2"])
        #expect(try texts("$..[0]", document) == [#"{"x":1}"#])
    }

    @Test func deepScanNeedsEveryMergedName() throws {
        let document = try json(#"{"a": {"x": 1, "y": 2}, "b": {"x": 3}}"#)
        #expect(try texts("$..['x','y']", document) == [#"{"x":1,"y":2}"#])
    }
}

// MARK: - Filters

@Suite("JSONPath filters")
struct JSONPathFilterTests {
    @Test func equality() throws {
        // A string "0" equals the number 0 (Jayway compares them as text or as numbers).
        #expect(try names("@.isVip == 0") == ["斗破苍穹", "诡秘之主"])
        #expect(try names("@.isVip == '1'") == ["凡人修仙传"])
        #expect(try names("@.author == '忘语'") == ["凡人修仙传"])
        #expect(try names("@['bookName'] == \"诡秘之主\"") == ["诡秘之主"])
        #expect(try names("@.finished == true") == ["斗破苍穹", "诡秘之主"])
        #expect(try names("@.intro == null") == ["斗破苍穹"])
        #expect(try names("@.score == 9.50") == ["斗破苍穹"])
        #expect(try names("@.tags == ['玄幻', '热血']") == ["斗破苍穹"])
        #expect(try names("@.lastChapter == {'id': 1623, 'name': '大结局'}") == ["斗破苍穹"])
        #expect(try names("@.isVip === 0") == ["斗破苍穹"])
        #expect(try names("@.isVip !== 0") == ["凡人修仙传", "诡秘之主"])
    }

    @Test func inequalityIncludesMissingKeys() throws {
        #expect(try names("@.isVip != 0") == ["凡人修仙传"])
        #expect(try names("@.intro != null") == ["凡人修仙传", "诡秘之主"])
        #expect(try names("@.cover != 'https://img.example.com/1001.jpg'") == ["凡人修仙传", "诡秘之主"])
    }

    @Test func ordering() throws {
        #expect(try names("@.score > 9.4") == ["斗破苍穹", "诡秘之主"])
        #expect(try names("@.score >= 9.5") == ["斗破苍穹", "诡秘之主"])
        #expect(try names("@.score < 9.5") == ["凡人修仙传"])
        #expect(try names("@.score <= 9.5") == ["斗破苍穹", "凡人修仙传"])
        #expect(try names("@.status > 'm'") == ["凡人修仙传"])
        #expect(try names("@.bookId<1002") == ["斗破苍穹"])
        // No coercion for ordering: the string "0" is neither less nor greater than a number.
        #expect(try names("@.isVip < 1") == ["斗破苍穹"])
        #expect(try names("@.cover > 0") == [])
    }

    @Test func numbersCompareExactly() throws {
        let document = try json(#"[{"id": 9007199254740993}, {"id": 9007199254740992}, {"id": 1e3}, {"id": -0.5}]"#)
        #expect(try texts("$[?(@.id == 9007199254740993)].id", document) == ["9007199254740993"])
        #expect(try texts("$[?(@.id > 9007199254740992)].id", document) == ["9007199254740993"])
        #expect(try texts("$[?(@.id == 1000)].id", document) == ["1e3"])
        #expect(try texts("$[?(@.id < 0)].id", document) == ["-0.5"])
        #expect(try texts("$[?(@.id >= -0.5 && @.id < 1)].id", document) == ["-0.5"])
    }

    @Test func logicalOperators() throws {
        #expect(try names("@.isVip == 0 && @.status == 'end' && @.score > 9.6") == ["诡秘之主"])
        #expect(try names("@.score > 9.7 || @.isVip == 1") == ["凡人修仙传", "诡秘之主"])
        #expect(try names("!(@.isVip == 1)") == ["斗破苍穹", "诡秘之主"])
        // && binds tighter than ||.
        #expect(try names("@.isVip == 1 || @.status == 'end' && @.score > 9.6") == ["凡人修仙传", "诡秘之主"])
        #expect(try names("(@.isVip == 1 || @.status == 'end') && @.score > 9.6") == ["诡秘之主"])
        #expect(try names("(@.score>9.7)||(@.score<9.2)") == ["凡人修仙传", "诡秘之主"])
    }

    @Test func existence() throws {
        #expect(try names("@.cover") == ["斗破苍穹", "凡人修仙传"])
        #expect(try names("!@.cover") == ["诡秘之主"])
        // A member holding null or false exists.
        #expect(try names("@.intro") == ["斗破苍穹", "凡人修仙传", "诡秘之主"])
        #expect(try names("@.lastChapter.id && @.finished") == ["斗破苍穹", "凡人修仙传"])
        #expect(try names("@.tags[0]") == ["斗破苍穹", "凡人修仙传"])
    }

    @Test func regexMatchesTheWholeValue() throws {
        #expect(try names("@.author =~ /.*土豆/") == ["斗破苍穹"])
        #expect(try names("@.author =~ /土豆/") == [])
        #expect(try names("@.cover =~ /HTTPS:.*1002\\.JPG/i") == ["凡人修仙传"])
        #expect(try names("@.bookId =~ /100[23]/") == ["凡人修仙传", "诡秘之主"])
        #expect(try names("@.status =~ /e\\/?nd/") == ["斗破苍穹", "诡秘之主"])
    }

    @Test func listOperators() throws {
        #expect(try names("@.bookId in [1001, 1003]") == ["斗破苍穹", "诡秘之主"])
        #expect(try names("@.status nin ['end']") == ["凡人修仙传"])
        #expect(try names("@.tags contains '仙侠'") == ["凡人修仙传"])
        #expect(try names("@.author contains '潜水'") == ["诡秘之主"])
        #expect(try names("@.tags size 2") == ["斗破苍穹"])
        #expect(try names("@.tags empty true") == ["诡秘之主"])
        #expect(try names("@.tags anyof ['热血', '仙侠']") == ["斗破苍穹", "凡人修仙传"])
        #expect(try names("@.tags noneof ['热血']") == ["凡人修仙传", "诡秘之主"])
        #expect(try names("@.tags subsetof ['玄幻', '热血', '都市']") == ["斗破苍穹", "诡秘之主"])
    }

    @Test func rootReferencesInsideFilters() throws {
        #expect(try names("@.bookId == $.data.featured") == ["凡人修仙传"])
        #expect(try names("$.code == 0") == ["斗破苍穹", "凡人修仙传", "诡秘之主"])
        #expect(try names("@.bookId == $.data.nothing") == [])
    }

    @Test func filtersOnObjectsAndScalars() throws {
        let document = try novel()
        // On an object the filter keeps or drops the object itself.
        #expect(try texts("$.data[?(@.total > 2)].total", document) == ["3"])
        #expect(try texts("$.data[?(@.total > 5)].total", document) == [])
        #expect(try texts("$.msg[?(@ == 'success')]", document) == [])
        // `@` alone is the element.
        #expect(try texts("$.data.list[0].tags[?(@ == '热血')]", document) == ["热血"])
        // Filters chain.
        #expect(try texts("$.data.list[?(@.status == 'end')][?(@.score > 9.6)].bookId", document) == ["1003"])
        // RFC 9535 form without parentheses.
        #expect(try texts("$.data.list[?@.isVip == 1].bookId", document) == ["1002"])
    }
}

// MARK: - Errors

struct JSONPathErrorCase: Sendable, CustomTestStringConvertible {
    let expression: String
    let message: String
    let offset: Int
    var testDescription: String { expression }
}

@Suite("JSONPath errors")
struct JSONPathErrorTests {
    @Test(arguments: [
        JSONPathErrorCase(expression: "", message: "the path is empty", offset: 0),
        JSONPathErrorCase(expression: "   ", message: "the path is empty", offset: 3),
        JSONPathErrorCase(expression: "$x", message: "expected '.' or '[', found 'x'", offset: 1),
        JSONPathErrorCase(
            expression: "$.data.", message: "a path must not end with '.'; add a name, '*' or '[…]'", offset: 6),
        JSONPathErrorCase(
            expression: "$..", message: "a path must not end with '..'; add a name, '*' or '[…]'", offset: 1),
        JSONPathErrorCase(expression: "$...a", message: "unexpected '.'", offset: 3),
        JSONPathErrorCase(
            expression: "$.book name",
            message: "a name cannot contain spaces; write it in brackets: ['my name']", offset: 6),
        JSONPathErrorCase(expression: "$.书名 x", message: "a name cannot contain spaces; write it in brackets: ['my name']", offset: 4),
        JSONPathErrorCase(
            expression: "$.list.length()", message: "functions such as 'length()' are not supported", offset: 7),
        JSONPathErrorCase(expression: "$.data[", message: "'[' is not closed", offset: 6),
        JSONPathErrorCase(expression: "$.a[1:2", message: "expected ']' to close the '[' at offset 3", offset: 7),
        JSONPathErrorCase(
            expression: "$.a[1 2]", message: "expected ']' to close the '[' at offset 3, found '2'", offset: 6),
        JSONPathErrorCase(
            expression: "$.a[abc]",
            message: "expected a quoted name, an index, a slice, '*' or '?(…)' after '[', found 'a'", offset: 4),
        JSONPathErrorCase(expression: "$['a", message: "the string starting here is not closed with '''", offset: 2),
        JSONPathErrorCase(expression: "$.a[-]", message: "expected an integer, found ']'", offset: 5),
        JSONPathErrorCase(expression: "$.a[99999999999]", message: "the index is too large", offset: 4),
        JSONPathErrorCase(expression: "$.a[*x]", message: "expected ']' to close the '[' at offset 3, found 'x'", offset: 5),
        JSONPathErrorCase(expression: "$.*b", message: "unexpected 'b' after '*'", offset: 3),
        JSONPathErrorCase(expression: "$.a[?(@.x = 1)]", message: "use '==' to compare", offset: 10),
        JSONPathErrorCase(
            expression: "$.a[?(@.x == )]",
            message: "expected a value (an @ or $ path, a quoted string, a number, true, false, null, /regex/ "
                + "or a [list]), found ')'",
            offset: 13),
        JSONPathErrorCase(
            expression: "$.a[?(@.x == 'v']",
            message: "expected ')' to close the '(' at offset 5, found ']'", offset: 16),
        JSONPathErrorCase(expression: "$.a[?(@.x lt 1)]", message: "unknown filter operator 'lt'", offset: 10),
        JSONPathErrorCase(
            expression: "$.a[?('v')]",
            message: "a literal is not a condition; compare it with an operator such as '=='", offset: 6),
        JSONPathErrorCase(
            expression: "$.a[?(@.)]", message: "a path must not end with '.'; add a name, '*' or '[…]'", offset: 7),
        JSONPathErrorCase(
            expression: "$.a[?(@.x =~ /ab/q)]", message: "unknown regex flag 'q' (use i, m, s, x, u, U or d)",
            offset: 17),
        JSONPathErrorCase(
            expression: "$.a[?(@.x =~ /ab)]", message: "the regex starting here is not closed with '/'", offset: 13),
        JSONPathErrorCase(expression: "$.a[?(@.x == -)]", message: "expected a number after '-'", offset: 13),
        JSONPathErrorCase(expression: "$.a[?(@.x in [1, 2", message: "the '[' literal starting here is not closed", offset: 13),
        JSONPathErrorCase(
            expression: "$.a[?(@.x in [1, 2)]",
            message: "invalid literal: expected ',' or ']' after an array element, found ')'", offset: 18),
        JSONPathErrorCase(expression: "$.a[?(@.x in [1,,2])]", message: "invalid literal: expected a value, found ','", offset: 16),
        JSONPathErrorCase(expression: "$.a[?(@.x == 1", message: "expected ')' to close the '(' at offset 5", offset: 14),
    ])
    func reportsMessageAndOffset(_ example: JSONPathErrorCase) throws {
        let error = try #require(compileError(example.expression))
        #expect(error.message == example.message)
        #expect(error.offset == example.offset)
        #expect(error.expression == example.expression)
    }

    @Test func descriptionNamesExpressionMessageAndOffset() throws {
        let error = try #require(compileError("$.data.list[?(@.isVip = 0)]"))
        #expect(error.description == #"invalid JSONPath "$.data.list[?(@.isVip = 0)]": use '==' to compare at offset 22"#)
        #expect(error == .invalid(expression: "$.data.list[?(@.isVip = 0)]", message: "use '==' to compare", offset: 22))
    }

    @Test func invalidRegexPointsIntoThePattern() throws {
        let error = try #require(compileError("$.a[?(@.x =~ /ab(c/)]"))
        #expect(error.message.hasPrefix("invalid regex /ab(c/: "))
        #expect(error.offset >= 14 && error.offset <= 18)
    }
}

// MARK: - Text

@Suite("JSONPath text")
struct JSONPathValueTextTests {
    @Test func ruleTextOfEachKind() throws {
        let document = try json(#"""
            {"s": "第一章 \"开始\"", "i": 1687595408889, "d": 1.0, "e": 1.5e3, "t": true, "f": false, "n": null,
             "a": ["玄幻", 1, null, {"k": "v"}], "o": {"x": [1, 2], "y": "z"}, "empty": ""}
            """#)
        func text(_ key: String) -> String? { document.objectValue?[key]?.value.ruleText }
        #expect(text("s") == "第一章 \"开始\"")
        #expect(text("i") == "1687595408889")
        #expect(text("d") == "1.0")
        #expect(text("e") == "1.5e3")
        #expect(text("t") == "true")
        #expect(text("f") == "false")
        #expect(text("n") == "")
        #expect(text("a") == #"["玄幻",1,null,{"k":"v"}]"#)
        #expect(text("o") == #"{"x":[1,2],"y":"z"}"#)
        #expect(text("empty") == "")
    }

    @Test func stringsFlattenADefiniteArrayAsLegadoDoes() throws {
        let document = try novel()
        #expect(try JSONPath("$.data.list[0].tags").strings(from: document) == ["玄幻", "热血"])
        #expect(try JSONPath("$.data.list[*].tags").strings(from: document) == [#"["玄幻","热血"]"#, #"["仙侠"]"#, "[]"])
        #expect(try JSONPath("$.data.list[*].bookId").string(from: document) == "1001\n1002\n1003")
        #expect(try JSONPath("$.data.list[0].intro").string(from: document) == "")
        #expect(try JSONPath("$.nothing").strings(from: document) == [])
    }
}

// MARK: - Templates

@Suite("JSONPath templates (JSONTemplate)")
struct JSONPathTemplateTests {
    private func book(_ index: Int) throws -> JSONValue {
        try #require(JSONPath("$.data.list[\(index)]").evaluate(novel()).first)
    }

    @Test func innerRulesAreReplaced() throws {
        let template = try JSONTemplate("https://www.example.com/book/{$.bookId}.html")
        #expect(template.render(try book(0)) == "https://www.example.com/book/1001.html")
        #expect(template.render(try book(2)) == "https://www.example.com/book/1003.html")
        let two = try JSONTemplate("/api/chapter?book={$.bookId}&chapter={$.lastChapter.id}")
        #expect(two.render(try book(1)) == "/api/chapter?book=1002&chapter=2446")
        #expect(!two.isLiteral)
    }

    @Test func emptyInnerRulesStayAsWrittenAndAllEmptyGivesNothing() throws {
        let template = try JSONTemplate("/b/{$.bookId}/{$.lastChapter.id}")
        #expect(template.render(try book(2)) == "/b/1003/{$.lastChapter.id}")
        let missing = try JSONTemplate("https://img.example.com/{$.cover}")
        #expect(missing.render(try book(2)) == "")
    }

    @Test func doubleBracedPieces() throws {
        let template = try JSONTemplate("{{$.bookName}}·{{$.author}}")
        #expect(template.render(try book(1)) == "凡人修仙传·忘语")
        #expect(try JSONTemplate("{{$.author}}").render(try book(0)) == "天蚕土豆")
        // A missing value becomes "", and a {$.…} beside {{…}} is left alone, as in Legado.
        let mixed = try JSONTemplate("{{$.cover}}#{$.bookId}")
        #expect(mixed.render(try book(2)) == "#{$.bookId}")
        #expect(try JSONTemplate("{{ @Json:$.bookId }}").render(try book(0)) == "1001")
    }

    @Test func severalValuesAreJoinedWithLineBreaks() throws {
        #expect(try JSONTemplate("{{$.tags[*]}}").render(try book(0)) == "玄幻\n热血")
        #expect(try JSONTemplate("{{$.tags}}").render(try book(0)) == "玄幻\n热血")
        #expect(try JSONTemplate("标签：{$.tags}").render(try book(0)) == "标签：玄幻\n热血")
    }

    @Test func combinatorsInsidePieces() throws {
        let fallback = try JSONTemplate("{{$.cover||$.bookName}}")
        #expect(fallback.render(try book(0)) == "https://img.example.com/1001.jpg")
        #expect(fallback.render(try book(2)) == "诡秘之主")
        let both = try JSONTemplate("{{$.author && $.missing && $.status}}")
        #expect(both.render(try book(1)) == "忘语\nserial")
        // && and || inside a filter do not split the piece.
        let filtered = try JSONTemplate("{$.tags[?(@ == '仙侠' || @ == '热血')]}")
        #expect(filtered.render(try book(0)) == "热血")
    }

    @Test func bracesAndQuotesInsidePieces() throws {
        let document = try json(#"{"list": [{"n": "}", "id": 7}, {"n": "x", "id": 8}]}"#)
        let template = try JSONTemplate("id={$.list[?(@.n == '}')].id}!")
        #expect(template.render(document) == "id=7!")
    }

    @Test func textWithoutPiecesRendersAsItself() throws {
        let template = try JSONTemplate("https://www.example.com/{$ no piece} {{unclosed")
        #expect(template.isLiteral)
        #expect(template.render(try novel()) == "https://www.example.com/{$ no piece} {{unclosed")
    }

    @Test func invalidPiecesAreReported() throws {
        do {
            _ = try JSONTemplate("https://x.com/{$.a[}")
            Issue.record("expected an error")
        } catch {
            #expect(error == .invalid(expression: "$.a[", message: "'[' is not closed", offset: 3))
        }
        do {
            _ = try JSONTemplate("{{page}}")
            Issue.record("expected an error")
        } catch {
            #expect(error.message == "{{…}} holds no JSONPath (JavaScript is not supported)")
        }
    }
}

import Testing

@testable import BookRuleRegex
import TestSupport

@Suite("RegexPattern")
struct RegexPatternTests {
    // MARK: Unicode

    @Test func wordCharactersCoverCJKAndFullWidth() throws {
        let re = try RegexPattern(#"\w+"#)
        #expect(try re.firstMatch(in: "——中文ＡＢＣ１２３abc ")?[0] == "中文ＡＢＣ１２３abc")
        #expect(try re.allMatches(in: "第一章，正文").map { $0[0] } == ["第一章", "正文"])
    }

    @Test func whitespaceCoversIdeographicSpace() throws {
        let re = try RegexPattern(#"a\sb"#)
        #expect(try re.matches("a\u{3000}b"))
        #expect(try RegexPattern(#"^\s+$"#).matches("\u{3000}\u{3000}"))
        #expect(try !re.matches("a\u{3001}b"))
    }

    @Test func fullWidthDigitsAreDigits() throws {
        #expect(try RegexPattern(#"^\d+$"#).matches("１２３"))
    }

    // MARK: Offsets and groups

    @Test func rangesAreUTF8ByteOffsets() throws {
        let subject = "第一章 abc"
        let chapter = try #require(try RegexPattern("章").firstMatch(in: subject))
        #expect(chapter.range == 6..<9)
        let latin = try #require(try RegexPattern("abc").firstMatch(in: subject))
        #expect(latin.range == 10..<13)
        let bytes = Array(subject.utf8)
        #expect(String(decoding: bytes[latin.range], as: UTF8.self) == "abc")
    }

    @Test func groupsIncludingUnsetOnes() throws {
        let re = try RegexPattern("(a)|(b)")
        #expect(re.captureCount == 2)
        let m = try #require(try re.firstMatch(in: "xb"))
        #expect(m.groups == ["b", nil, "b"])
        #expect(m[0] == "b")
        #expect(m[1] == nil)
        #expect(m[2] == "b")
        #expect(m[3] == nil)
        #expect(m[-1] == nil)
        #expect(m.range == 1..<2)
    }

    @Test func emptyGroupIsNotUnset() throws {
        let m = try #require(try RegexPattern("(a*)b").firstMatch(in: "b"))
        #expect(m.groups == ["b", ""])
    }

    @Test func namedGroups() throws {
        let m = try #require(try RegexPattern(#"(?<title>[^/]+)/(?<n>\d+)"#).firstMatch(in: "书名/12"))
        #expect(m[name: "title"] == "书名")
        #expect(m[name: "n"] == "12")
        #expect(m[name: "missing"] == nil)
        #expect(m.groupNames == ["title": 1, "n": 2])
    }

    @Test func noMatchAndEmptySubject() throws {
        #expect(try RegexPattern("a").firstMatch(in: "") == nil)
        #expect(try RegexPattern("a").allMatches(in: "bcd").isEmpty)
        #expect(try RegexPattern("x*").allMatches(in: "").map(\.range) == [0..<0])
        #expect(try RegexPattern("").replacingMatches(in: "", with: JavaReplacement("-")) == "-")
    }

    // MARK: allMatches

    @Test func emptyMatchesNeverSplitCharacters() throws {
        let ranges = try RegexPattern("x*").allMatches(in: "中文😀").map(\.range)
        #expect(ranges == [0..<0, 3..<3, 6..<6, 10..<10])
        #expect(try RegexPattern("x*").replacingMatches(in: "中文😀", with: JavaReplacement("-")) == "-中-文-😀-")
    }

    @Test func allMatchesFollowJavaFindAfterNonEmptyMatch() throws {
        // Java: "abc".replaceAll("b*", "-") == "-a--c-"
        #expect(try RegexPattern("b*").replacingMatches(in: "abc", with: JavaReplacement("-")) == "-a--c-")
        let matches = try RegexPattern("章*").allMatches(in: "第章章节")
        #expect(matches.map(\.range) == [0..<0, 3..<9, 9..<9, 12..<12])
    }

    @Test func allMatchesAreNonOverlapping() throws {
        let matches = try RegexPattern("aa").allMatches(in: "aaaaa")
        #expect(matches.map(\.range) == [0..<2, 2..<4])
    }

    @Test func lookbehindSeesTextBeforeTheSearchStart() throws {
        let matches = try RegexPattern(#"(?<=章)\d"#).allMatches(in: "章1章2x3")
        #expect(matches.map { $0[0] } == ["1", "2"])
    }

    // MARK: Replacement

    @Test func replaceAllAndFirstOnly() throws {
        let re = try RegexPattern(#"\d+"#)
        let subject = "第1章第22节"
        #expect(try re.replacingMatches(in: subject, with: JavaReplacement("#")) == "第#章第#节")
        #expect(try re.replacingMatches(in: subject, with: JavaReplacement("#"), firstOnly: true) == "第#章第22节")
        #expect(try re.replacingMatches(in: "无数字", with: JavaReplacement("#")) == "无数字")
        #expect(try re.replacingMatches(in: subject, with: .empty) == "第章第节")
    }

    @Test func javaGroupReferences() throws {
        let one = try RegexPattern(#"(\d+)"#)
        #expect(try one.replacingMatches(in: "a12b", with: JavaReplacement("<$1>")) == "a<12>b")
        #expect(try one.replacingMatches(in: "a12b", with: JavaReplacement("[$0]")) == "a[12]b")
        // Only one group: "$12" is group 1 followed by a literal "2", as in Java.
        #expect(try one.replacingMatches(in: "a12b", with: JavaReplacement("$12")) == "a122b")
        // A group the pattern does not have is kept as written (Java would throw).
        #expect(try one.replacingMatches(in: "a12b", with: JavaReplacement("$3")) == "a$3b")

        let twelve = try RegexPattern("(a)(b)(c)(d)(e)(f)(g)(h)(i)(j)(k)(l)")
        #expect(twelve.captureCount == 12)
        #expect(try twelve.replacingMatches(in: "abcdefghijkl", with: JavaReplacement("$12$1")) == "la")
        #expect(try twelve.replacingMatches(in: "abcdefghijkl", with: JavaReplacement("$123")) == "l3")
    }

    @Test func javaEscapesAndStrayDollars() throws {
        let re = try RegexPattern(#"(\d+)"#)
        #expect(try re.replacingMatches(in: "x1", with: JavaReplacement(#"\$1"#)) == "x$1")
        #expect(try re.replacingMatches(in: "x1", with: JavaReplacement(#"\\$1"#)) == #"x\1"#)
        #expect(try re.replacingMatches(in: "x1", with: JavaReplacement("y$")) == "xy$")
        #expect(try re.replacingMatches(in: "x1", with: JavaReplacement("$a$")) == "x$a$")
        #expect(try re.replacingMatches(in: "x1", with: JavaReplacement("￥$1元")) == "x￥1元")
        #expect(try re.replacingMatches(in: "x1", with: JavaReplacement(#"end\"#)) == #"xend\"#)
        #expect(try re.replacingMatches(in: "x1", with: JavaReplacement("${oops")) == "x${oops")
    }

    @Test func unsetGroupExpandsToEmpty() throws {
        let re = try RegexPattern("(a)|(b)")
        #expect(try re.replacingMatches(in: "ab", with: JavaReplacement("[$1|$2]")) == "[a|][|b]")
    }

    @Test func namedGroupReference() throws {
        let re = try RegexPattern(#"(?<num>\d+)"#)
        #expect(try re.replacingMatches(in: "第3章", with: JavaReplacement("<${num}>")) == "第<3>章")
        #expect(try re.replacingMatches(in: "第3章", with: JavaReplacement("${nope}")) == "第${nope}章")
    }

    @Test func replacementParsesOnce() {
        #expect(JavaReplacement("a$1") == JavaReplacement("a$1"))
        #expect(JavaReplacement("a$1") != JavaReplacement("a$2"))
        #expect(JavaReplacement(#"a\b"#).pieces == [.literal("ab")])
        #expect(JavaReplacement("x$12").pieces == [.literal("x"), .number(digits: Array("12".utf8))])
        #expect(JavaReplacement.empty.pieces.isEmpty)
        let hand = RegexMatch(range: 0..<1, groups: ["a", nil])
        #expect(JavaReplacement("<$1$0>").expand(hand) == "<a>")
    }

    // MARK: Errors

    @Test func compileErrorsCarryMessageAndOffset() {
        #expect(throws: RegexError.compile(pattern: "a(b", message: "missing closing parenthesis", offset: 3)) {
            try RegexPattern("a(b")
        }
        #expect(
            throws: RegexError.compile(pattern: "[z-a]", message: "range out of order in character class", offset: 3)
        ) {
            try RegexPattern("[z-a]")
        }
        // Offsets count characters, not UTF-8 bytes: the pattern "中(文" ends at character 3 (byte 7).
        #expect(throws: RegexError.compile(pattern: "中(文", message: "missing closing parenthesis", offset: 3)) {
            try RegexPattern("中(文")
        }
        #expect(throws: RegexError.self) { try RegexPattern(#"\C"#) }
        // After a Java `\uXXXX` (compiled as the longer `\x{XXXX}`) the offset still counts what was written.
        #expect(throws: RegexError.compile(pattern: #"\u3002(文"#, message: "missing closing parenthesis", offset: 8)) {
            try RegexPattern(#"\u3002(文"#)
        }
    }

    /// Legado runs Java regexes, and sources write `\u3002` for "。"; PCRE2 spells it `\x{3002}`.
    @Test func javaUnicodeEscapes() throws {
        #expect(try RegexPattern(#"\s\u3002"#).replacingMatches(in: "好 。啊", with: JavaReplacement("")) == "好啊")
        #expect(try RegexPattern(#"[\u4e00-\u9fa5]+"#).firstMatch(in: "ab中文cd")?[0] == "中文")
        // An escaped backslash before u is a backslash and a u, as in Java.
        #expect(try RegexPattern(#"\\u3002"#).firstMatch(in: #"x\u3002"#)?[0] == #"\u3002"#)
        // Not four hex digits: still PCRE2's (and Java's) error.
        #expect(throws: RegexError.self) { try RegexPattern(#"\u30"#) }
    }

    @Test func errorDescriptionsAreActionable() {
        #expect(
            RegexError.compile(pattern: "a(b", message: "missing closing parenthesis", offset: 3).description
                == #"invalid regex "a(b": missing closing parenthesis at offset 3"#)
        #expect(
            RegexError.matchLimitExceeded(pattern: "(a+)+$").description
                == #"regex "(a+)+$" gave up: it exceeded the backtracking limit (rewrite it to avoid nested repetition)"#)
        let failed = RegexError.fromMatch(code: -48, pattern: "p")  // PCRE2_ERROR_NOMEMORY
        #expect(failed == .matchFailed(pattern: "p", code: -48, message: "no more memory"))
        #expect(failed.description == #"regex "p" failed while matching: no more memory (PCRE2 error -48)"#)
        #expect(RegexError.fromMatch(code: -63, pattern: "p") == .matchLimitExceeded(pattern: "p"))
    }

    // MARK: Limits

    @Test(.tags(.realTime), arguments: [true, false])
    func catastrophicPatternGivesUpFast(jit: Bool) throws {
        let subject = String(repeating: "a", count: 1 << 20 - 1) + "!"
        let re = try RegexPattern("(a+)+$", limits: .default, jit: jit)
        #expect(re.usesJIT == jit)
        var thrown: RegexError?
        let elapsed = threadCPUTime {
            do { _ = try re.firstMatch(in: subject) } catch { thrown = error as? RegexError }
        }
        #expect(thrown == .matchLimitExceeded(pattern: "(a+)+$"))
        #expect(elapsed < TestTime.bound(.seconds(10)))  // unbounded backtracking would run for hours
    }

    @Test(.tags(.realTime)) func nestedQuantifierOverXsGivesUpFastWithJIT() throws {
        let subject = String(repeating: "x", count: 1 << 20)
        let re = try RegexPattern("(x+x+)+y")
        var thrown: RegexError?
        let elapsed = threadCPUTime {
            do { _ = try re.matches(subject) } catch { thrown = error as? RegexError }
        }
        // The interpreter proves there is no "y" up front; the JIT backtracks into the limit.
        if re.usesJIT { #expect(thrown == .matchLimitExceeded(pattern: "(x+x+)+y")) }
        #expect(elapsed < TestTime.bound(.seconds(10)))  // unbounded backtracking would run for hours
    }

    @Test(arguments: [true, false])
    func legitimatePatternsWorkOnTwoMegabytes(jit: Bool) throws {
        let filler = String(repeating: "abc>def<ghi/ 正文内容 ", count: 2 << 20 / 26)
        #expect(filler.utf8.count >= 2_000_000)

        let script = try RegexPattern("(?s)<script.*?</script>", limits: .default, jit: jit)
        let whole = "<script>" + filler + "</script>"
        #expect(try script.firstMatch(in: whole)?.range == 0..<whole.utf8.count)

        let ad = try RegexPattern("广告.*", limits: .default, jit: jit)
        #expect(try ad.firstMatch(in: "广告" + filler)?.range.count == filler.utf8.count + 6)

        let toc = try RegexPattern(#"<dd><a href="([^"]+)">([^<]+)</a>"#, limits: .default, jit: jit)
        let page = String(repeating: #"<dd><a href="/b/1.html">第一章 开始</a></dd>"#, count: 2 << 20 / 50)
        let entries = try toc.allMatches(in: page)
        #expect(entries.count == 2 << 20 / 50)
        #expect(entries.last?[1] == "/b/1.html")
        #expect(entries.last?[2] == "第一章 开始")
    }

    @Test func jitStackOverflowFallsBackToInterpreter() throws {
        // Each iteration of a group repetition uses JIT stack; 200k of them exhaust the JIT's default
        // stack, and the retry on the interpreter (heap frames) must still find the match.
        let re = try RegexPattern("(?:a|b)*c")
        let subject = String(repeating: "ab", count: 100_000) + "c"
        #expect(try re.firstMatch(in: subject)?.range == 0..<200_001)
    }

    @Test func limitsAreConfigurable() throws {
        let tight = RegexLimits(matchLimit: 1_000, depthLimit: 1_000, heapLimitKiB: 1_024)
        let re = try RegexPattern("(?s)<script.*?</script>", limits: tight)
        #expect(re.limits == tight)
        let subject = "<script>" + String(repeating: "x", count: 100_000) + "</script>"
        #expect(throws: RegexError.matchLimitExceeded(pattern: re.pattern)) { try re.matches(subject) }
        #expect(try RegexPattern(re.pattern).matches(subject))
    }

    // MARK: Concurrency

    @Test func oneInstanceSharedAcrossTasks() async throws {
        let re = try RegexPattern(#"第(\d+)章"#)
        let results = await withTaskGroup(of: (Int, [String?], String).self) { group in
            for task in 0..<16 {
                group.addTask {
                    let subject = (0..<500).map { "第\(task * 1000 + $0)章 内容" }.joined(separator: "\n")
                    let groups = (try? re.allMatches(in: subject).map { $0[1] }) ?? []
                    let replaced = (try? re.replacingMatches(in: subject, with: JavaReplacement("<$1>"))) ?? ""
                    return (task, groups, replaced)
                }
            }
            var all: [(Int, [String?], String)] = []
            for await result in group { all.append(result) }
            return all
        }
        #expect(results.count == 16)
        for (task, groups, replaced) in results {
            #expect(groups == (0..<500).map { String(task * 1000 + $0) })
            #expect(replaced == (0..<500).map { "<\(task * 1000 + $0)> 内容" }.joined(separator: "\n"))
        }
    }
}

import Foundation
import Testing
@testable import BookRuleDocument
@testable import BookRuleEngine
@testable import BookRuleHTTP
@testable import BookRuleRules
import TestSupport

/// Random inputs built from the pieces that make rules and sources interesting: nothing may crash or hang,
/// and everything the engine rejects is rejected with an error. Seeded, so a failure reproduces.
@Suite("Random sources and rules")
struct RobustnessTests {
    /// Tokens of every dialect, combinator and template form, and characters that break naive parsers.
    static let ruleTokens = [
        "//", "/", "div", "a", "@href", "text()", "[", "]", "@", "class.", "id.", "tag.", ".0", ".-1", "!0", ":",
        "##", "###", "&&", "||", "%%", "{{", "}}", "{", "}", "$.", "$..", "[*]", "@Json:", "@XPath:", "@css:",
        "@@", "@put:{", "@get:{", "key", "'", "\"", "(", ")", "\\", "*", "+", "?", "-", "|", "第(.*?)章", "$1",
        ",", "@text", "@html", "@ownText", "@textNodes", " ", "\n", "\u{3000}", "\u{0}", "é", "<js>", "</js>",
        "[@class='x']", "::", ">", "~", "#", ".", "contains(", "@js:", "..", "[0:2]", "[-1]", "=", "null",
    ]

    static let page = """
        <html><body><div class="x" id="list"><a href="/1.html">第1章 开始</a><a href="2.html">第2章</a>
        <p>段落&amp;一<br>段落二</p><script>var x = 1;</script></div></body></html>
        """

    static func randomRule(_ random: inout SeededRandomNumberGenerator) -> String {
        (0..<Int.random(in: 1...8, using: &random)).map { _ in
            ruleTokens[Int.random(in: 0..<ruleTokens.count, using: &random)]
        }.joined()
    }

    /// `BOOKRULE_FUZZ_RULES=150000 swift test --filter RobustnessTests/randomRules` runs a longer search.
    @Test("4,000 random rules compile or fail with a rule error, and run without crashing on HTML, JSON and text", .tags(.realTime))
    func randomRules() async throws {
        try await offCooperativePool {
            var random = SeededRandomNumberGenerator(seed: 1130)
            let document = try HTMLDocument(bytes: Array(Self.page.utf8), url: "https://a.test/book/1/")
            let json = try HTMLDocument(bytes: Array(#"{"data": {"list": [{"name": "a", "url": "/1"}]}}"#.utf8), url: "https://a.test/api")
            let contexts: [RuleContext] = [document.rootContext, json.rootContext, .text("第1章 开始\n正文")]
            let clock = ContinuousClock()
            let started = clock.now
            var compiled = 0
            for _ in 0..<(Int(ProcessInfo.processInfo.environment["BOOKRULE_FUZZ_RULES"] ?? "") ?? 4000) {
                let text = Self.randomRule(&random)
                let kind: RuleKind = Bool.random(using: &random) ? .list : .string
                guard let rule = try? RuleParser.parse(text, field: "ruleToc.chapterList", kind: kind) else {
                    // A rejected rule names its field and says why.
                    do {
                        _ = try RuleParser.parse(text, field: "ruleToc.chapterList", kind: kind)
                    } catch {
                        #expect("\(error)".contains("ruleToc.chapterList"), "\(text): \(error)")
                        #expect(!"\(error)".isEmpty)
                    }
                    continue
                }
                compiled += 1
                for context in contexts {
                    let environment = RuleEnvironment(baseURL: "https://a.test/book/1/")
                    if kind == .list {
                        _ = try? rule.elements(in: context, environment: environment)
                    } else {
                        _ = try? rule.strings(in: context, environment: environment)
                    }
                }
            }
            // Enough of them are valid for the evaluation half of the test to mean something.
            #expect(compiled > 1000, "only \(compiled) of 4,000 compiled")
            #expect(started.duration(to: clock.now) < TestTime.bound(.seconds(60)))
        }
    }

    @Test("2,000 random pages of markup, entities and GBK bytes are decoded, parsed and turned into text")
    func randomPages() async throws {
        try await offCooperativePool {
            var random = SeededRandomNumberGenerator(seed: 77)
            let pieces: [[UInt8]] = [
                "<div>", "</div>", "<p>", "<br>", "</br>", "<script>", "</script>", "<!--", "-->", "&amp;", "&#20013;",
                "&#xFFFFFF;", "&nbsp;", "<meta charset=gbk>", "<meta charset=\"big5\">", "<a href='x'>", "</a>", "<pre>",
                "text ", "\u{3000}", "<![CDATA[", "]]>", "<", ">", "&", "\r\n", "<html>", "<body>", "{\"a\":",
            ].map { Array($0.utf8) } + [[0xD5, 0xC2], [0xB5, 0xDA], [0xFF, 0xFE], [0xE4, 0xB8], [0x00], [0x81, 0x30, 0x81, 0x30]]
            let rule = try RuleParser.parse("//div", field: "ruleContent.content", kind: .string)
            for _ in 0..<2000 {
                var bytes: [UInt8] = []
                for _ in 0..<Int.random(in: 0...40, using: &random) {
                    bytes += pieces[Int.random(in: 0..<pieces.count, using: &random)]
                }
                guard let document = try? HTMLDocument(bytes: bytes, url: "https://a.test/") else { continue }
                let strings = (try? rule.strings(in: document.rootContext, environment: RuleEnvironment(baseURL: document.url))) ?? []
                for text in strings {
                    let clean = HTMLTextFormatter.text(fromMarkup: text)
                    #expect(!clean.contains("<script"))
                }
                _ = HTMLTextFormatter.text(of: document.root)
            }
        }
    }

    @Test("3,000 damaged copies of an example source load or fail with a located error, never crash")
    func damagedSources() async throws {
        try await offCooperativePool {
            let path = SharedCorpus.repositoryRoot + "/Sources-json/example-utf8.json"
            let original = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
            var random = SeededRandomNumberGenerator(seed: 2026)
            let inserts: [[UInt8]] = ["{", "}", "[", "]", "\"", "\\", ",", ":", "\\u", "\\ud800", "null", "1e999", "\u{0}", "##", "{{"]
                .map { Array($0.utf8) }
            var loaded = 0
            var rejected = 0
            for _ in 0..<3000 {
                var bytes = original
                for _ in 0..<Int.random(in: 1...4, using: &random) {
                    let position = Int.random(in: 0...bytes.count, using: &random)
                    switch Int.random(in: 0..<4, using: &random) {
                    case 0: bytes.insert(contentsOf: inserts[Int.random(in: 0..<inserts.count, using: &random)], at: position)
                    case 1: if position < bytes.count { bytes.remove(at: position) }
                    case 2: bytes = Array(bytes[..<position])
                    default: if position < bytes.count { bytes[position] = UInt8.random(in: 0...255, using: &random) }
                    }
                }
                do {
                    let sources = try BookSource.load(bytes: bytes, path: "damaged.json")
                    loaded += 1
                    for source in sources { _ = source.problems.map(\.description) }
                } catch {
                    rejected += 1
                    #expect("\(error)".contains("damaged.json"), "\(error)")
                }
            }
            // Both outcomes are exercised: damage inside a string leaves a loadable file, most damage does not.
            #expect(loaded > 100, "only \(loaded) damaged copies loaded")
            #expect(rejected > 100, "only \(rejected) damaged copies were rejected")
        }
    }
}

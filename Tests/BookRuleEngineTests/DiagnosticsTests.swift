import Foundation
import Testing
@testable import BookRuleEngine
@testable import BookRuleHTTP
import BookRuleRules
import BookRuleScript
import TestSupport

@Suite("Diagnostics that never lie: what broke, and where")
struct DiagnosticsTests {
    static func source(_ toc: String = #""chapterList": "//li", "chapterName": "//a/text()", "chapterUrl": "//a/@href", "nextTocUrl": "//a[@class='next']/@href""#,
                       content: String = ###""content": "//div[@id='c']", "replaceRegex": "##.*""###) throws -> BookSource {
        try loadSource("""
            {"bookSourceUrl": "https://d.test", "bookSourceName": "diagnostics",
             "ruleToc": {\(toc)}, "ruleContent": {\(content)}}
            """)
    }

    @Test("a TOC whose next page fails keeps the chapters read so far and says why it stops")
    func partialTOC() async throws {
        let site = TestSite(html: ["https://d.test/toc/1": "<ul><li><a href='/c/1'>一</a></li><li><a href='/c/2'>二</a></li></ul><a class='next' href='/toc/2'>next</a>"])
        let toc = try await SourceEngine(source: try Self.source(), transport: site).toc(url: "https://d.test/toc/1")
        #expect(toc.chapters.map(\.title) == ["一", "二"])
        #expect(toc.incomplete?.contains("https://d.test/toc/2") == true, "\(toc.incomplete ?? "complete")")
        #expect(toc.incomplete?.contains("404") == true)
        #expect(toc.warnings.contains(toc.incomplete ?? "-"))
    }

    @Test("a chapter URL rule that is empty in every element fails naming the field and the count")
    func emptyURLEverywhere() async throws {
        let site = TestSite(html: ["https://d.test/toc/1": "<ul><li><a>一</a></li><li><a>二</a></li><li><a>三</a></li></ul>"])
        await #expect {
            try await SourceEngine(source: try Self.source(), transport: site).toc(url: "https://d.test/toc/1")
        } throws: { error in
            guard case EngineError.fieldEmptyEverywhere(let field, _, let elements, _) = error else { return false }
            return field == "ruleToc.chapterUrl" && elements == 3
        }
    }

    static let threeChapters = "<ul><li><a href='/c/1'>一</a></li><li><a href='/c/2'>二</a></li><li><a href='/c/3'>三</a></li></ul>"

    /// Counts the evaluations of each rule field.
    final class EvaluationCounter: RuleTracing, @unchecked Sendable {
        private let lock = NSLock()
        private var counts: [String: Int] = [:]
        func record(_ rule: Rule, values: [String], error: String?) { lock.withLock { counts[rule.field, default: 0] += 1 } }
        func record(list rule: Rule, count: Int, error: String?) {}
        func record(fetch: FetchTrace) {}
        func count(_ field: String) -> Int { lock.withLock { counts[field] ?? 0 } }
    }

    @Test("a TOC field stopped by its script's CPU time limit fails naming the field and the limit, and is stopped once, not once per chapter")
    func scriptTimeLimitNamedInTheTOCError() async throws {
        let site = TestSite(html: ["https://d.test/toc/1": Self.threeChapters])
        let source = try Self.source(#""chapterList": "//li", "chapterName": "@js:while (true) {}", "chapterUrl": "//a/@href""#)
        let limits = ScriptLimits(timeLimit: .milliseconds(300))
        let counter = EvaluationCounter()
        let engine = SourceEngine(source: source, transport: site, options: EngineOptions(scriptLimits: limits), tracer: counter)
        await #expect {
            try await engine.toc(url: "https://d.test/toc/1")
        } throws: { error in
            guard case EngineError.fieldEmptyEverywhere(let field, _, let elements, let cause) = error else { return false }
            return field == "ruleToc.chapterName" && elements == 3 && cause?.hitLimit == true
                && "\(error)".contains("it failed (JavaScript): JavaScript ran longer than its 0.3 seconds CPU time limit")
        }
        #expect(counter.count("ruleToc.chapterName") == 1)
    }

    @Test("a TOC field stopped by its regex's backtracking limit fails naming the field and the limit")
    func regexLimitNamedInTheTOCError() async throws {
        let site = TestSite(html: ["https://d.test/toc/1": "<ul><li><a href='/c/1'>\(String(repeating: "a", count: 40))!</a></li></ul>"])
        let source = try Self.source(#""chapterList": "//li", "chapterName": "//a/text()##(a+)+$##x", "chapterUrl": "//a/@href""#)
        await #expect {
            try await SourceEngine(source: source, transport: site).toc(url: "https://d.test/toc/1")
        } throws: { error in
            guard case EngineError.fieldEmptyEverywhere(let field, _, _, let cause) = error else { return false }
            return field == "ruleToc.chapterName" && cause?.hitLimit == true && "\(error)".contains("backtracking limit")
        }
    }

    @Test("a TOC list rule stopped at the XPath operation limit is the rule's error, with the field path and dialect")
    func xpathOperationLimitIsTheRuleError() async throws {
        let items = (0..<3000).map { "<li><a href='/c/\($0)'>\($0)</a></li>" }.joined()
        let site = TestSite(html: ["https://d.test/toc/1": "<ul>\(items)</ul>"])
        let source = try Self.source(#""chapterList": "//li[//li[//li[//a]]]", "chapterName": "//a/text()", "chapterUrl": "//a/@href""#)
        await #expect {
            try await SourceEngine(source: source, transport: site).toc(url: "https://d.test/toc/1")
        } throws: { error in
            guard case EngineError.rule(_, let rule) = error else { return false }
            return rule.field == "ruleToc.chapterList" && rule.dialect == .xpath && rule.hitLimit
                && rule.reason.contains("operation limit")
        }
    }

    @Test("a script's error names its field once")
    func scriptErrorNamesTheFieldOnce() async throws {
        let site = TestSite(html: ["https://d.test/c/1": "<p>x</p>"])
        let source = try Self.source(content: #""content": "@js:throw new Error('no text')""#)
        await #expect {
            try await SourceEngine(source: source, transport: site).content(of: Chapter(index: 0, title: "", url: "https://d.test/c/1"))
        } throws: { error in
            "\(error)".components(separatedBy: "ruleContent.content").count == 2 && "\(error)".contains("no text")
        }
    }

    @Test("an undeclared short page decoded as GB18030 by fallback is a warning of the step, as try shows it")
    func charsetFallbackIsWarned() async throws {
        let bytes = Array("<ul><li><a href='/c/1'>".utf8) + [0x91, 0xE6, 0x88, 0xEA, 0x8F, 0xCD] + Array("</a></li></ul>".utf8)
        let site = TestSite(["https://d.test/toc/1": .init(body: bytes)])
        let toc = try await SourceEngine(source: try Self.source(), transport: site).toc(url: "https://d.test/toc/1")
        #expect(toc.warnings.filter { $0.contains("the fallback") }.count == 1, "\(toc.warnings)")
        #expect(toc.warnings.contains { $0.hasPrefix("https://d.test/toc/1: declares no charset") && $0.contains("GB18030") })
    }

    @Test("javascript: chapter URLs are counted and warned, not passed silently")
    func nonHTTPChapterURLs() async throws {
        let site = TestSite(html: ["https://d.test/toc/1": "<ul><li><a href='javascript:cid(1)'>一</a></li><li><a href='/c/2'>二</a></li></ul>"])
        let toc = try await SourceEngine(source: try Self.source(), transport: site).toc(url: "https://d.test/toc/1")
        #expect(toc.nonHTTPChapterURLs == 1)
        #expect(toc.warnings.contains { $0.contains("javascript:cid(1)") })
    }

    @Test("the non-http count is of the chapters returned: a javascript: link on 27 entries, de-duplicated to one, is one")
    func nonHTTPCountAfterDeduplication() async throws {
        let items = (1...27).map { "<li><a href='javascript:void(0)'>第\($0)章</a></li>" }.joined()
        let site = TestSite(html: ["https://d.test/toc/1": "<ul>\(items)<li><a href='/c/2'>二</a></li></ul>"])
        let toc = try await SourceEngine(source: try Self.source(), transport: site).toc(url: "https://d.test/toc/1")
        #expect(toc.chapters.count == 2 && toc.droppedDuplicates == 26)
        #expect(toc.nonHTTPChapterURLs == 1)
        #expect(toc.warnings.contains { $0.hasPrefix("1 chapter URL(s) are not http(s) links") }, "\(toc.warnings)")
    }

    @Test("an empty chapter says which rule emptied it")
    func emptyChapterReason() async throws {
        let site = TestSite(html: ["https://d.test/c/1": "<div id='c'>正文很长</div>", "https://d.test/c/2": "<p>nothing</p>"])
        let engine = SourceEngine(source: try Self.source(), transport: site)
        let emptied = try await engine.content(of: Chapter(index: 0, title: "", url: "https://d.test/c/1"))
        #expect(emptied.text.isEmpty)
        #expect(emptied.emptyReason == "ruleContent.replaceRegex removed all 4 characters ruleContent.content found on https://d.test/c/1")
        let unmatched = try await engine.content(of: Chapter(index: 0, title: "", url: "https://d.test/c/2"))
        #expect(unmatched.emptyReason == "ruleContent.content found no text on https://d.test/c/2")
    }

    @Test("an anti-bot answer is named: a 503 challenge as the error, a 200 script-redirect stub as a warning")
    func antiBot() async throws {
        let challenge = "<html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>"
        let stub = "<html><head><script>window.location.href='/real?x=1'</script></head><body></body></html>"
        let site = TestSite([
            "https://d.test/toc/1": .init(status: 503, body: Array(challenge.utf8)),
            "https://d.test/toc/2": .init(body: Array(stub.utf8)),
        ])
        let engine = SourceEngine(source: try Self.source(), transport: site)
        await #expect {
            try await engine.toc(url: "https://d.test/toc/1")
        } throws: { error in
            guard case EngineError.blocked(_, let status, let page) = error else { return false }
            return status == 503 && page.kind == .challenge
        }
        let toc = try await engine.toc(url: "https://d.test/toc/2")
        #expect(toc.chapters.isEmpty)
        #expect(toc.warnings.contains { $0.contains("script-redirect stub") }, "\(toc.warnings)")
    }

    @Test("a charset option that garbles a UTF-8 answer is warned, and U+FFFD in decoded text is counted")
    func charsetWarnings() async throws {
        let source = try loadSource(#"""
            {"bookSourceUrl": "https://d.test", "bookSourceName": "gbk search",
             "searchUrl": "/s?q={{key}},{'charset':'gbk'}",
             "ruleSearch": {"bookList": "//li", "name": "//a/text()", "bookUrl": "//a/@href"},
             "ruleToc": {"chapterList": "//li", "chapterName": "//a/text()", "chapterUrl": "//a/@href"}}
            """#)
        let site = TestSite([
            "https://d.test/s?q=%B6%B7": .init(body: Array("<ul><li><a href='/b/1'>斗破苍穹</a></li></ul>".utf8)),
            "https://d.test/toc": .init(headers: [HTTPHeader("Content-Type", "text/html; charset=gbk")],
                                        body: Array("<ul><li><a href='/c/1'>".utf8) + [0xB5, 0xDA, 0xFF, 0x31] + Array("</a></li></ul>".utf8)),
        ])
        let engine = SourceEngine(source: source, transport: site)
        let search = try await engine.search(key: "斗")
        #expect(search.warnings.contains { $0.contains("charset option says GB18030, but the answer is valid UTF-8") }, "\(search.warnings)")
        let toc = try await engine.toc(url: "https://d.test/toc")
        #expect(toc.warnings.contains { $0.contains("1 byte sequence(s) are not valid GB18030") }, "\(toc.warnings)")
    }
}

import Foundation
import Testing
@testable import BookRuleEngine
import TestSupport

/// A TOC field whose rule ends in JavaScript, evaluated for all the chapters of a page in one call
/// (`EngineOptions.batchesListScripts`, issue #22), against the same TOC read one evaluation per chapter.
@Suite("TOC fields ending in JavaScript: one call per page gives what one evaluation per chapter gives")
struct ListScriptBatchTests {
    static let tocURL = "https://batch.test/toc"

    static func source(chapterName: String, chapterUrl: String = "//a/@href", jsLib: String? = nil) -> String {
        let lib = jsLib.map { #""jsLib": "\#($0)","# } ?? ""
        return #"""
        {
          "bookSourceUrl": "https://batch.test",
          "bookSourceName": "batch test",
          \#(lib)
          "ruleToc": {"chapterList": "//li", "chapterName": "\#(chapterName)", "chapterUrl": "\#(chapterUrl)"}
        }
        """#
    }

    /// Chapters with CJK and non-BMP titles, runs of blanks, an element without a link text (its XPath gives
    /// no value) and one without a link at all.
    static let page = """
        <ul>
        <li><a href='/c/1'>  第一章   开始 </a></li>
        <li><a href='/c/2'>第二章 😀 𠀀 “引号”</a></li>
        <li><a href='/c/3'></a></li>
        <li><span>没有链接</span></li>
        <li><a href='/c/5'>第五章\t坏</a></li>
        <li><a href='/c/6'>第六章</a></li>
        </ul>
        """

    /// The TOC read with and without batching: chapters as `title|url`, the warnings, or the error.
    static func read(_ source: String, page: String = Self.page, batched: Bool,
                     timeLimit: Duration = .seconds(2)) async throws -> (chapters: [String], warnings: [String], error: String?) {
        var options = EngineOptions()
        options.batchesListScripts = batched
        options.scriptLimits.timeLimit = timeLimit
        let engine = SourceEngine(source: try loadSource(source), transport: TestSite(html: [tocURL: page]), options: options)
        do {
            let toc = try await engine.toc(url: tocURL)
            return (toc.chapters.map { "\($0.title)|\($0.url)" }, toc.warnings, nil)
        } catch {
            return ([], [], "\(error)")
        }
    }

    @Test("the values are the same, an element without a value included, CJK and non-BMP text round-trips", arguments: [
        #"//a/text()@js:result.replace(/\\s+/g, ' ').trim()"#,
        #"//a/text()@js:result ? '[' + result + ']' : null"#,
        #"//a/text()@js:var parts = result.split(/\\s+/); parts.join('_') + parts.length"#,
        #"//a/text()<js>result + '|' + baseUrl</js>"#,
        #"//a/text()@js:[result, result.length]"#,
        #"a@text@js:result.trim() + '.'"#,
        #"//a/text()##开始##结束@js:result + '.'"#,
        #"//text()@js:JSON.stringify(result)"#,
    ])
    func sameValues(_ chapterName: String) async throws {
        let source = Self.source(chapterName: chapterName)
        let batched = try await Self.read(source, batched: true)
        let single = try await Self.read(source, batched: false)
        #expect(batched.error == nil && single.error == nil, "\(batched.error ?? "") \(single.error ?? "")")
        #expect(batched.chapters == single.chapters)
        #expect(batched.warnings == single.warnings)
        #expect(!batched.chapters.isEmpty)
    }

    @Test("the cleaned titles are what the snippet makes of each chapter")
    func expectedTitles() async throws {
        let source = Self.source(chapterName: #"//a/text()@js:result.replace(/\\s+/g, ' ').trim() + '·'"#)
        let batched = try await Self.read(source, batched: true)
        #expect(batched.chapters == [
            "第一章 开始·|https://batch.test/c/1", "第二章 😀 𠀀 “引号”·|https://batch.test/c/2", "·|https://batch.test/c/3",
            // No link: the chapter is on the TOC page itself, as one evaluation per chapter gives it.
            "·|https://batch.test/toc", "第五章 坏·|https://batch.test/c/5", "第六章·|https://batch.test/c/6",
        ])
    }

    @Test("a snippet that throws for one element: the same warning, naming the field, and the other titles as before")
    func throwsForOne() async throws {
        let source = Self.source(chapterName: #"//a/text()@js:if (result.indexOf('坏') >= 0) throw new Error('bad title ' + result.trim()); result.trim()"#)
        let batched = try await Self.read(source, batched: true)
        let single = try await Self.read(source, batched: false)
        #expect(batched.chapters == single.chapters)
        #expect(batched.warnings == single.warnings)
        #expect(batched.chapters.contains("|https://batch.test/c/5"))
        #expect(batched.chapters.contains("第六章|https://batch.test/c/6"))
        #expect(batched.warnings.contains { $0.contains("ruleToc.chapterName") && $0.contains("bad title 第五章") && $0.contains("line") },
                "\(batched.warnings)")
    }

    @Test("java.put in the title and java.get in the link: not batched, each link sees its own chapter's title")
    func variablesAcrossFields() async throws {
        let source = Self.source(chapterName: #"//a/text()@js:java.put('t', result.trim()); result.trim()"#,
                                 chapterUrl: #"//a/@href@js:result + '?t=' + encodeURIComponent(java.get('t'))"#)
        let batched = try await Self.read(source, batched: true)
        let single = try await Self.read(source, batched: false)
        #expect(batched.chapters == single.chapters)
        #expect(batched.warnings == single.warnings)
        // The title line collapses the blanks the snippet kept; the variable has them.
        #expect(batched.chapters.first == "第一章 开始|https://batch.test/c/1?t=%E7%AC%AC%E4%B8%80%E7%AB%A0%20%20%20%E5%BC%80%E5%A7%8B")
        #expect(batched.chapters.last == "第六章|https://batch.test/c/6?t=%E7%AC%AC%E5%85%AD%E7%AB%A0")
    }

    @Test("a pure title script beside a link script: the link still sees each chapter, the values are the same")
    func scriptInAnotherField() async throws {
        let source = Self.source(chapterName: #"//a/text()@js:result.trim()"#,
                                 chapterUrl: #"//a/@href@js:result + '#' + java.getString('//a/text()').length"#)
        let batched = try await Self.read(source, batched: true)
        let single = try await Self.read(source, batched: false)
        #expect(batched.chapters == single.chapters)
        #expect(batched.chapters.last == "第六章|https://batch.test/c/6#3")
    }

    @Test("a link rule ending in JavaScript is batched too, with the same links")
    func links() async throws {
        let source = Self.source(chapterName: "//a/text()", chapterUrl: #"//a/@href@js:result.replace('/c/', '/chapter/') + '.html'"#)
        let batched = try await Self.read(source, batched: true)
        let single = try await Self.read(source, batched: false)
        #expect(batched.chapters == single.chapters)
        #expect(batched.warnings == single.warnings)
        #expect(batched.chapters.last == "第六章|https://batch.test/chapter/6.html")
    }

    @Test("a snippet that leaves a global: removed after each element, as after each evaluation")
    func globalsRemovedPerElement() async throws {
        let source = Self.source(chapterName: #"//a/text()@js:var seen = typeof counter === 'undefined' ? 'fresh' : 'leaked'; counter = 1; seen"#)
        let batched = try await Self.read(source, batched: true)
        let single = try await Self.read(source, batched: false)
        #expect(batched.chapters == single.chapters)
        #expect(batched.chapters.allSatisfy { $0.hasPrefix("fresh|") }, "\(batched.chapters)")
    }

    @Test("an endless loop for one element is stopped by the time limit with a clear error, no hang; the elements before keep their titles", .tags(.realTime))
    func endlessLoop() async throws {
        let source = Self.source(chapterName: #"//a/text()@js:if (result.indexOf('坏') >= 0) { while (true) {} } result.trim()"#)
        let clock = ContinuousClock()
        let started = clock.now
        let batched = try await Self.read(source, batched: true, timeLimit: .milliseconds(300))
        let single = try await Self.read(source, batched: false, timeLimit: .milliseconds(300))
        #expect(clock.now - started < TestTime.bound(.seconds(60)))
        #expect(batched.chapters == single.chapters)
        #expect(batched.warnings == single.warnings)
        #expect(batched.chapters.prefix(2) == ["第一章 开始|https://batch.test/c/1", "第二章 😀 𠀀 “引号”|https://batch.test/c/2"])
        // The chapter that looped and the one after it (the rule is not run again once a limit stopped it).
        #expect(batched.chapters.suffix(2) == ["|https://batch.test/c/5", "|https://batch.test/c/6"])
        #expect(batched.warnings.contains { $0.contains("ruleToc.chapterName") && $0.contains("time") }, "\(batched.warnings)")
    }

    @Test("every element has the time limit of one evaluation, not the whole page")
    func limitPerElement() async throws {
        // Each title takes about 150 ms (wall clock, so at most as much CPU time) under a 400 ms limit: six of
        // them would exceed it together.
        let source = Self.source(chapterName: #"//a/text()@js:(function (until) { while (Date.now() < until) {} })(Date.now() + 150); result.trim()"#)
        let batched = try await Self.read(source, batched: true, timeLimit: .milliseconds(400))
        #expect(batched.warnings.isEmpty, "\(batched.warnings)")
        #expect(batched.chapters.last == "第六章|https://batch.test/c/6")
    }

    @Test("a source with a jsLib reads the same either way (its snippets are not batched)")
    func withJSLib() async throws {
        let source = Self.source(chapterName: #"//a/text()@js:tidy(result)"#,
                                 jsLib: #"function tidy(s) { return s.replace(/\\s+/g, '-'); }"#)
        let batched = try await Self.read(source, batched: true)
        let single = try await Self.read(source, batched: false)
        #expect(batched.chapters == single.chapters)
        #expect(batched.chapters.first == "-第一章-开始-|https://batch.test/c/1")
    }

    @Test("under a fixed clock each element sees the clock and random sequence restarted, as one evaluation does")
    func fixedClock() async throws {
        let source = Self.source(chapterName: #"//a/text()@js:result.trim() + ':' + Date.now() + ':' + Math.random()"#)
        var titles: [[String]] = []
        for batched in [true, false] {
            var options = EngineOptions(scriptClock: .fixed(epochMilliseconds: 1_704_067_200_000, seed: 7))
            options.batchesListScripts = batched
            let engine = SourceEngine(source: try loadSource(source), transport: TestSite(html: [Self.tocURL: Self.page]),
                                      options: options)
            titles.append(try await engine.toc(url: Self.tocURL).chapters.map(\.title))
        }
        #expect(titles[0] == titles[1])
        let suffixes = Set(titles[0].map { $0.split(separator: ":", omittingEmptySubsequences: false).dropFirst().joined(separator: ":") })
        #expect(suffixes.count == 1, "\(titles[0])")
    }
}

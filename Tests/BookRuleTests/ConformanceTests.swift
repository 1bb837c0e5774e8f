import Foundation
import Testing
@testable import BookRule

/// Community Legado sources applied to real saved pages of novel sites (the shared corpus outside the repo:
/// `<repo>/../shared/corpus`, see its `pages/README.md` and `pages/MANIFEST.json`). Only pages with a usable
/// community source that passes are listed here; the others, with the reason, are in docs/compatibility.md
/// ("Real pages").
enum Corpus {
    /// `<repo>/../shared/corpus`, found from this file (Tests/BookRuleTests/ConformanceTests.swift).
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/corpus").standardized.path

    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root + "/pages/MANIFEST.json")
    }

    struct Manifest: Decodable {
        struct Page: Decodable {
            var local_path: String
            var kind: String
            var site_domain: String
            var charset_meta: String?
            var charset_bytes: String?
            var legado_sources: [SourceRef]
        }
        struct SourceRef: Decodable {
            var bookSourceName: String
            var bookSourceUrl: String
            var `in`: String
        }
        var pages: [Page]
    }

    static func manifestPage(_ localPath: String) throws -> Manifest.Page {
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/pages/MANIFEST.json"))
        let manifest = try JSONDecoder().decode(Manifest.self, from: data)
        return try #require(manifest.pages.first { $0.local_path == localPath }, "\(localPath) is not in the manifest")
    }

    /// The page as a document, with its original URL (not in the manifest: taken from the page's own
    /// canonical/og:url/mobile-agent links or the saving project's expected URLs).
    static func document(_ localPath: String, url: String) throws -> HTMLDocument {
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/pages/" + localPath)))
        return try HTMLDocument(bytes: bytes, url: url)
    }

    /// The community source the manifest lists for the page, loaded from its collection file and picked by
    /// the manifest's bookSourceName and bookSourceUrl.
    static func source(for page: Manifest.Page, named name: String) throws -> BookSource {
        let ref = try #require(page.legado_sources.first { $0.bookSourceName == name },
                               "the manifest lists no source \(name) for \(page.local_path)")
        let file = root + "/" + ref.in.replacingOccurrences(of: "corpus/", with: "")
        let sources = try BookSource.load(contentsOf: file)
        let matches = sources.filter { $0.name == ref.bookSourceName && $0.url == ref.bookSourceUrl }
        #expect(matches.count == 1, "\(name) should be unique in \(ref.in)")
        return try #require(matches.first)
    }

    static func expectedPath(_ relative: String) -> String { root + "/pages/" + relative }

    /// Lines trimmed (ASCII and full-width spaces, NBSP) with empty lines dropped.
    static func normalised(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{3000}\u{00A0}"))) }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    static func problems(_ source: BookSource, section: String, fields: [String]) -> [SourceProblem] {
        source.problems.filter { problem in fields.contains { problem.field.hasSuffix("\(section).\($0)") } }
    }
}

struct TocCase: Sendable, CustomTestStringConvertible {
    var page: String
    var url: String
    var source: String
    /// The saving project's chapters.json (relative to pages/), when it has one.
    var expected: String?
    /// How many of the first chapters the expected list covers, when it covers only part of the TOC.
    var expectedPrefix: Bool = false
    var count: Int
    var duplicates: Int = 0
    var first: (title: String, url: String)
    var last: (title: String, url: String)
    var why: String = ""
    var testDescription: String { "\(page) with \(source)" }

    static let all: [TocCase] = [
        TocCase(page: "bosslsk_hmqf_crawler_hy/tests/parser/data/biquge/book_detail.html",
                url: "http://www.biquge5200.com/86_86306/", source: "笔趣阁㉘",
                expected: "bosslsk_hmqf_crawler_hy/expected/tests/parser/data/biquge/chapters.json",
                count: 36, duplicates: 9,
                first: ("第一章 惊不惊喜，意不意外！", "http://www.biquge5200.com/86_86306/151188004.html"),
                last: ("第三十六章 乌龙", "http://www.biquge5200.com/86_86306/151212529.html"),
                why: "#list holds the 9 latest chapters (最新章节) before the full list (正文): 45 links, 36 URLs"),
        TocCase(page: "bosslsk_hmqf_crawler_hy/tests/parser/data/hongxiu/book_detail.html",
                url: "https://www.hongxiu.com/book/6972481904230701", source: "💵 红袖添香",
                expected: "bosslsk_hmqf_crawler_hy/expected/tests/parser/data/hongxiu/chapters.json",
                expectedPrefix: true, count: 949,
                first: ("第001章：林寒星", "https://www.hongxiu.com/chapter/6972481904230701/18716614465026564"),
                last: ("第949章：惊艳", "https://www.hongxiu.com/chapter/6972481904230701/25511916289577520"),
                why: "expected chapters.json holds only the first volume (正文, 82 chapters); the source lists all three volumes"),
        TocCase(page: "dteviot_WebToEpub/scratch/novelhall2.html",
                url: "https://www.novelhall.com/the-vampire-her-witch-36934/", source: "💤 NovelHall",
                count: 1654,
                first: ("Chapter 1 - 1: A Shallow Grave", "https://www.novelhall.com/the-vampire-her-witch-36934/16300914.html"),
                last: ("Chapter 1654: Champions vs Soldiers (Part One)", "https://www.novelhall.com/the-vampire-her-witch-36934/19681148.html")),
        TocCase(page: "dteviot_WebToEpub/test_index.html",
                url: "https://freewebnovel.com/novel/mom-is-a-slut-my-younger-sibling-is-a-bully-and-dad-is-a-thug",
                source: "FreeWebNovel", count: 103,
                first: ("Chapter 1 Mom is a Camgirl, Dad is a Thug",
                        "https://freewebnovel.com/novel/mom-is-a-slut-my-younger-sibling-is-a-bully-and-dad-is-a-thug/chapter-1"),
                last: ("Chapter 103: Breaking the Sex Slave (18+)",
                       "https://freewebnovel.com/novel/mom-is-a-slut-my-younger-sibling-is-a-bully-and-dad-is-a-thug/chapter-103")),
    ]
}

struct ContentCase: Sendable, CustomTestStringConvertible {
    var page: String
    var url: String
    var source: String
    /// The saving project's chapter_content.txt (relative to pages/), when it has one.
    var expected: String?
    var starts: String
    var ends: String
    var testDescription: String { "\(page) with \(source)" }

    static let all: [ContentCase] = [
        ContentCase(page: "bosslsk_hmqf_crawler_hy/tests/parser/data/biquge/chapter_content.html",
                    url: "http://www.biquge5200.com/86_86306/151188004.html", source: "笔趣阁㉘",
                    expected: "bosslsk_hmqf_crawler_hy/expected/tests/parser/data/biquge/chapter_content.txt",
                    starts: "啪啪啪！", ends: "“儿子，惊不惊喜，意不意外！”"),
        ContentCase(page: "bosslsk_hmqf_crawler_hy/tests/parser/data/hongxiu/chapter_content.html",
                    url: "https://www.hongxiu.com/chapter/6972481904230701/18716614465026564", source: "💵 红袖添香",
                    expected: "bosslsk_hmqf_crawler_hy/expected/tests/parser/data/hongxiu/chapter_content.txt",
                    starts: "景洪·澜沧江流域", ends: "几乎是在同时，楼梯口出现了个疯狂男人的背影……"),
        ContentCase(page: "bosslsk_hmqf_crawler_hy/tests/parser/data/qidian/chapter_page.html",
                    url: "https://read.qidian.com/chapter/22eRNbqHujMKgXB091LLaA2/84-fqqRQy5maGfXRMrUjdw2", source: "起点中文",
                    starts: "西阳市，云海小区！", ends: "“我不想，我不想，我不想长大……”秦昊扫了一眼叶青儿的胸部哼哼着。"),
        ContentCase(page: "dteviot_WebToEpub/test_chapter.html",
                    url: "https://freewebnovel.com/novel/mom-is-a-slut-my-younger-sibling-is-a-bully-and-dad-is-a-thug/chapter-1",
                    source: "FreeWebNovel",
                    starts: "Chapter 1 Mom is a Camgirl, Dad is a Thug", ends: "Fuck... fuck."),
    ]
}

@Suite("Conformance: community sources on real saved pages",
       .enabled(if: Corpus.isAvailable, "the shared corpus (<repo>/../shared/corpus/pages/MANIFEST.json) is absent"))
struct ConformanceTests {
    struct Entry { var title: String; var url: String }

    @Test("TOC: chapterList/chapterName/chapterUrl", arguments: TocCase.all)
    func toc(_ test: TocCase) throws {
        let page = try Corpus.manifestPage(test.page)
        #expect(page.kind == "toc")
        let source = try Corpus.source(for: page, named: test.source)
        #expect(Corpus.problems(source, section: "ruleToc", fields: ["chapterList", "chapterName", "chapterUrl"]).isEmpty)
        let document = try Corpus.document(test.page, url: test.url)
        if page.charset_meta == "gbk" && page.charset_bytes == "utf-8" {
            #expect(document.charset.charset == "UTF-8", "meta says gbk, bytes are UTF-8: \(document.charset)")
        }
        let environment = RuleEnvironment(baseURL: document.baseURL)
        let list = try #require(source.toc[.chapterList])
        var entries: [Entry] = []
        for element in try list.elements(in: document.rootContext, environment: environment) {
            let title = try source.toc[.chapterName]?.string(in: element, environment: environment) ?? ""
            var href = try source.toc[.chapterUrl]?.string(in: element, environment: environment) ?? ""
            // Legado's `url,{options}`: 红袖添香 appends `,{'webView': true}` (##$##…); the options are for the
            // request, not part of the chapter's address.
            if let options = href.range(of: #"\s*,\s*(?=\{)"#, options: .regularExpression) {
                href = String(href[..<options.lowerBound])
            }
            let url = try #require(URLReference.resolve(href, against: document.baseURL), "\(href) does not resolve")
            entries.append(Entry(title: title, url: url))
        }
        // Legado de-duplicates by URL keeping the *last* occurrence (BookChapterList: reverse, LinkedHashSet,
        // reverse back), so a "latest chapters" block above the full list drops out and the order stays right;
        // SourceEngine.toc does the same (tested in SourceEngineTests).
        var seen = Set<String>()
        var chapters: [Entry] = []
        for entry in entries.reversed() where seen.insert(entry.url).inserted { chapters.append(entry) }
        chapters.reverse()
        #expect(entries.count - chapters.count == test.duplicates, "duplicates dropped: \(test.why)")

        #expect(chapters.count == test.count)
        #expect(chapters.first?.title == test.first.title)
        #expect(chapters.first?.url == test.first.url)
        #expect(chapters.last?.title == test.last.title)
        #expect(chapters.last?.url == test.last.url)
        #expect(chapters.allSatisfy { !$0.title.isEmpty })
        #expect(chapters.allSatisfy { $0.url.hasPrefix("http://") || $0.url.hasPrefix("https://") })
        #expect(chapters.allSatisfy { !$0.url.contains(" ") && !$0.url.contains("{") })

        if let expectedPath = test.expected {
            struct Expected: Decodable { var url: String; var title: String }
            let data = try Data(contentsOf: URL(fileURLWithPath: Corpus.expectedPath(expectedPath)))
            let expected = try JSONDecoder().decode([Expected].self, from: data)
            if test.expectedPrefix {
                #expect(expected.count < chapters.count, "\(test.why)")
            } else {
                #expect(expected.count == chapters.count)
            }
            for (got, want) in zip(chapters, expected) {
                // hongxiu's 第053章：维C ends in U+3000 in the page and in the saving project's list (jsoup's text()
                // keeps it too); bookrule trims full-width spaces from text results, so compare trimmed titles.
                #expect(got.title == Corpus.normalised(want.title))
                #expect(got.url == want.url)
            }
        }
    }

    @Test("content: content + replaceRegex, as text", arguments: ContentCase.all)
    func content(_ test: ContentCase) throws {
        let page = try Corpus.manifestPage(test.page)
        #expect(page.kind == "content")
        let source = try Corpus.source(for: page, named: test.source)
        #expect(Corpus.problems(source, section: "ruleContent", fields: ["content", "replaceRegex"]).isEmpty)
        let document = try Corpus.document(test.page, url: test.url)
        if page.charset_meta == "gbk" && page.charset_bytes == "utf-8" {
            #expect(document.charset.charset == "UTF-8", "meta says gbk, bytes are UTF-8: \(document.charset)")
        }
        let environment = RuleEnvironment(baseURL: document.baseURL)
        let rule = try #require(source.content[.content])
        let parts = try rule.strings(in: document.rootContext, environment: environment)
        var text = parts.map { HTMLTextFormatter.text(fromMarkup: $0) }.joined(separator: "\n")
        if let replace = source.content[.replaceRegex] {
            text = try replace.string(in: .text(text), environment: environment)
        }
        let normalised = Corpus.normalised(text)
        #expect(!normalised.isEmpty)
        #expect(normalised.hasPrefix(test.starts))
        #expect(normalised.hasSuffix(test.ends))
        #expect(normalised.range(of: #"<[A-Za-z/!][^>]*>"#, options: .regularExpression) == nil, "a tag is left")
        #expect(normalised.range(of: #"&(#[0-9]+|#x[0-9A-Fa-f]+|[A-Za-z]+);"#, options: .regularExpression) == nil,
                "an entity is left")
        #expect(!normalised.contains("\u{FFFD}"), "mis-decoded bytes")
        if let expectedPath = test.expected {
            let expected = try String(contentsOfFile: Corpus.expectedPath(expectedPath), encoding: .utf8)
            #expect(normalised == Corpus.normalised(expected))
        }
    }
}

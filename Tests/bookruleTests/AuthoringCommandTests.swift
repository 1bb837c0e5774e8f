import BookRuleCheck
import Foundation
import Testing
import TestSupport
@testable import bookrule

/// `<repo>/../shared/corpus/pages`.
let corpusPages = repositoryRoot + "/../shared/corpus/pages"
let corpusIsAvailable = FileManager.default.fileExists(atPath: corpusPages + "/MANIFEST.json")

/// A source for novgo.net's search page (saved by dteviot/WebToEpub), searched with a POST.
private let novgoSearch = """
{"bookSourceName": "NovGo POST", "bookSourceUrl": "https://novgo.net",
 "searchUrl": "/search,{\\"method\\": \\"POST\\", \\"body\\": \\"keyword={{key}}\\"}",
 "ruleSearch": {"bookList": "class.truyen-title", "name": "tag.a@text", "bookUrl": "tag.a@href"}}
"""

@Suite("Saved pages, bookrule try, fixtures, shards and merged reports on the command line", .timeLimit(.minutes(2 * TestTime.scale)))
struct AuthoringCommandTests {
    func run(_ words: [String]) async -> (status: Int32, output: String, errors: String) { await runCommand(words) }

    @Test("toc reads a saved GBK page as the response of its real URL: links resolve there, nothing is fetched",
          .enabled(if: corpusIsAvailable, "the shared corpus is not beside this checkout"))
    func tocFromSavedGBKPage() async throws {
        let result = await run(["toc", "--source", repositoryRoot + "/Sources-json/real/biquge-com-tw.json",
                                "--saved", corpusPages + "/0987363_book-downloader/biquge.html", "https://www.biquge.com.tw/17_17275/"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.contains("  1  第一章 穿越（新书求支持，求推荐！求收藏！）  https://www.biquge.com.tw/17_17275/7633255.html"))
        #expect(result.output.contains("821 chapter(s) from 1 page(s)"))
    }

    @Test("a page that is not saved is a clear error naming its URL, with the flag that adds it (exit 1)")
    func notSaved() async throws {
        let directory = try temporaryDirectory()
        try "<h1>x</h1>".write(toFile: directory + "/book.html", atomically: true, encoding: .utf8)
        let result = await run(["chapter", "--source", repositoryRoot + "/Sources-json/example-utf8.json",
                                "--saved", "http://127.0.0.1:8792/read/5/2.html=\(directory)/book.html", "http://127.0.0.1:8792/read/5/1.html"])
        #expect(result.status == 1)
        #expect(result.errors.contains("not saved: GET http://127.0.0.1:8792/read/5/1.html is not among the saved pages (saved: http://127.0.0.1:8792/read/5/2.html); nothing was fetched"))
        #expect(result.errors.contains("add --saved 'http://127.0.0.1:8792/read/5/1.html'=FILE"))
    }

    @Test("a POST search runs on a saved results page through a saved-pages directory and through a HAR built with fixture add",
          .enabled(if: corpusIsAvailable, "the shared corpus is not beside this checkout"))
    func postSearch() async throws {
        let directory = try temporaryDirectory()
        try novgoSearch.write(toFile: directory + "/novgo.json", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: directory + "/pages", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: corpusPages + "/dteviot_WebToEpub/scratch/novgo_search.html", toPath: directory + "/pages/search.html")
        try #"{"https://novgo.net/search": {"file": "search.html", "method": "POST", "body": "keyword=spirit"}}"#
            .write(toFile: directory + "/pages/pages.json", atomically: true, encoding: .utf8)
        let saved = await run(["search", "--source", directory + "/novgo.json", "--saved-dir", directory + "/pages", "spirit"])
        #expect(saved.status == 0, "\(saved.errors)")
        #expect(saved.output.contains("11 result(s) from https://novgo.net/search"))
        #expect(saved.output.contains("https://novgo.net/i-accumulate-spirit-roots-for-my-next-life.html"))

        let har = directory + "/fixture/site.har"
        let added = await run(["fixture", "add", har, "https://novgo.net/search", directory + "/pages/search.html",
                               "--method", "POST", "--body", "keyword=spirit"])
        #expect(added.status == 0, "\(added.errors)")
        let replayed = await run(["search", "--source", directory + "/novgo.json", "--replay", har, "spirit", "--verbose"])
        #expect(replayed.status == 0, "\(replayed.errors)")
        #expect(replayed.output.contains("11 result(s)"))
        #expect(replayed.errors.contains("replayed POST https://novgo.net/search -> 200, "))
        // Another key is another body: the error shows it and the command that records it.
        let missing = await run(["search", "--source", directory + "/novgo.json", "--replay", har, "ghost"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("no recorded response for POST https://novgo.net/search with body \"keyword=ghost\""))
        #expect(missing.errors.contains("`bookrule fixture add HAR 'https://novgo.net/search' SAVED_PAGE --method POST --body 'keyword=ghost'`"))
    }

    @Test("--verbose shows replayed exchanges under --replay (it printed nothing before)")
    func verboseReplay() async throws {
        let result = await run(["toc", "--source", repositoryRoot + "/Sources-json/example-utf8.json", "--replay",
                                repositoryRoot + "/Fixtures/example-utf8/site.har", "http://127.0.0.1:8792/novel/5/", "--verbose"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.errors.contains("replayed GET http://127.0.0.1:8792/novel/5/all.html -> 200, "))
    }

    @Test("try prints dialect, translation, node paths, cleaned values; --json gives the same as data",
          .enabled(if: corpusIsAvailable, "the shared corpus is not beside this checkout"))
    func tryCommand() async throws {
        let page = corpusPages + "/0987363_book-downloader/biquge.html"
        let text = await run(["try", "id.list@dl@dd@a@href", page, "--url", "https://www.biquge.com.tw/17_17275/", "--limit", "3"])
        #expect(text.status == 0, "\(text.errors)")
        #expect(text.output.contains("  read as JSoup"))
        #expect(text.output.contains("  runs as "))
        #expect(text.output.contains("  3. div#list > dl > dd:nth-child(3) > a  <a href=\"/17_17275/7633257.html\">"))
        #expect(text.output.contains("values   821 after cleaning"))
        #expect(text.output.contains("time     "))
        let json = await run(["try", "@href", page, "--list", "id.list@dl@dd@a", "--json"])
        let result = try JSONDecoder().decode(RuleTrialResult.self, from: Data(json.output.utf8))
        #expect(result.listCount == 821 && result.values.first == "/17_17275/7633255.html")
        let misread = await run(["try", "text()", page, "--list", "id.list@dl@dd@a"])
        #expect(misread.status == 1)
        #expect(misread.output.contains("warning  \"text()\" is read as a JSoup rule"))
        let broken = await run(["try", "//dd[", page])
        #expect(broken.status == 2)
    }

    @Test("try --url shows link values resolved against the page's URL; text values and pages without an http URL stay as written")
    func tryResolvesLinks() async throws {
        let page = repositoryRoot + "/Fixtures/authoring/pages/book.html"
        let url = "https://www.example.com/novel/5/"
        for rule in ["//a[@id='all-chapters']/@href", "a#all-chapters@href", "@css:a#all-chapters@href"] {
            let resolved = await run(["try", rule, page, "--url", url])
            #expect(resolved.output.contains("1. \"https://www.example.com/novel/5/all.html\""), "\(rule): \(resolved.output)")
        }
        let asWritten = await run(["try", "//a[@id='all-chapters']/@href", page])
        #expect(asWritten.output.contains("1. \"../../novel/5/all.html\""), "\(asWritten.output)")
        let text = await run(["try", "//div[@class='book']/h1/text()", page, "--url", url])
        #expect(text.output.contains("values   1 after cleaning") && !text.output.contains("1. \"https://"), "\(text.output)")
    }

    @Test("try --limit N --json lists at most N values, matches and elements, and counts them all")
    func tryLimitAppliesToJSON() async throws {
        let page = repositoryRoot + "/Fixtures/authoring/pages/toc.html"
        let plain = await run(["try", "//ul[@id='chapter-list']/li/a/@href", page, "--limit", "3", "--json"])
        let result = try JSONDecoder().decode(RuleTrialResult.self, from: Data(plain.output.utf8))
        #expect(result.values.count == 3 && result.valueCount == 24 && result.matches?.count == 3 && result.matchCount == 24)
        let listed = await run(["try", "//a/@href", page, "--list", "//ul[@id='chapter-list']/li[a]", "--limit", "2", "--json"])
        let list = try JSONDecoder().decode(RuleTrialResult.self, from: Data(listed.output.utf8))
        #expect(list.elements?.count == 2 && list.values.count == 2 && list.valueCount == 24 && list.listCount == 24)
        #expect(listed.status == 0)
    }

    @Test("try gives a GBK page's size as its bytes on disk, not the size of its decoded text",
          .enabled(if: corpusIsAvailable, "the shared corpus is not beside this checkout"))
    func tryPageSizeIsBytesReceived() async throws {
        let page = corpusPages + "/0987363_book-downloader/biquge.html"
        let size = try #require(try FileManager.default.attributesOfItem(atPath: page)[.size] as? Int)
        let result = await run(["try", "//title/text()", page, "--url", "https://www.biquge.com.tw/17_17275/"])
        #expect(result.output.contains("GB18030") && result.output.contains(", \(size) bytes)"), "\(result.output)")
    }

    @Test("try and the step commands read a page from standard input with -")
    func standardInput() async throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.bookrule)
        process.arguments = ["try", "//a/@href", "-", "--url", "https://x.test/book/1/"]
        let input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = output
        let status = try await ChildProcess.run(process) {
            input.fileHandleForWriting.write(Data("<p><a href='2.html'>next</a></p>".utf8))
            try input.fileHandleForWriting.close()
        }
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        #expect(status == 0, "\(text)")
        #expect(text.contains("page     https://x.test/book/1/"))
        #expect(text.contains("1. \"https://x.test/book/1/2.html\""), "the href resolves against --url")
    }

    @Test("test --chapter checks a chapter of the example's fixture instead of the first and last")
    func testChapter() async throws {
        let result = await run(["test", repositoryRoot + "/Sources-json/example-utf8.json", "--fixtures",
                                repositoryRoot + "/Fixtures/example-utf8", "--chapter", "http://127.0.0.1:8792/read/5/24.html"])
        // The stored snapshot has the first chapter too, so only the steps are compared here.
        #expect(result.output.contains("✓ chapter 1     http://127.0.0.1:8792/read/5/24.html (#24 of the TOC)"))
        #expect(!result.output.contains("first chapter"))
    }

    @Test("--shard K/N splits a collection into disjoint parts, failures are classed, report merge joins the parts")
    func shardsAndMerge() async throws {
        let directory = try temporaryDirectory()
        let sources = (1...8).map { #"{"bookSourceName": "S\#($0)", "bookSourceUrl": "https://s\#($0).test", "ruleToc": {"chapterList": "//a"}}"# }
        try ("[" + sources.joined(separator: ",") + "]").write(toFile: directory + "/many.json", atomically: true, encoding: .utf8)
        var names: [[String]] = []
        for shard in ["1/2", "2/2"] {
            let result = await run(["test", directory + "/many.json", "--shard", shard, "--json"])
            #expect(result.status == 1)
            #expect(result.errors.contains("shard \(shard): "))
            try result.output.write(toFile: directory + "/\(shard.first ?? "x").json", atomically: true, encoding: .utf8)
            let reports = try JSONDecoder().decode([CheckReport].self, from: Data(result.output.utf8))
            #expect(reports.allSatisfy { $0.failure == .couldNotCheck })  // no fixtures
            names.append(reports.map(\.source))
        }
        #expect(Set(names[0]).isDisjoint(with: names[1]))
        #expect(Set(names[0] + names[1]) == Set((1...8).map { "S\($0)" }))

        let merged = await run(["report", "merge", directory + "/1.json", directory + "/2.json", "--junit", directory + "/all.xml"])
        #expect(merged.status == 1)
        let reports = try JSONDecoder().decode([CheckReport].self, from: Data(merged.output.utf8))
        #expect(reports.count == 8)
        #expect(merged.errors.contains("sources: 0 passed, 8 failed (8 could not check)"))
        let xml = try String(contentsOfFile: directory + "/all.xml", encoding: .utf8)
        #expect(xml.contains("type=\"could-not-check\""))
        #expect(xml.components(separatedBy: "<testsuite ").count == 9)
        let bad = await run(["test", directory + "/many.json", "--shard", "3/2"])
        #expect(bad.status == 2 && bad.errors.contains("--shard takes K/N"))
    }

    @Test("fixture add refuses what it cannot record and says so")
    func fixtureAddErrors() async throws {
        let directory = try temporaryDirectory()
        #expect(await run(["fixture", "add", directory + "/a.har", "book/1", "x.html"]).errors.contains("not an absolute http(s) URL"))
        #expect(await run(["fixture", "add", directory + "/a.har", "https://x.test/", directory + "/none.html"]).status == 2)
        #expect(await run(["fixture", "add", directory + "/a.har", "https://x.test/", "f", "--method", "GET", "--body", "q=1"]).errors.contains("--body needs --method POST"))
        #expect(!FileManager.default.fileExists(atPath: directory + "/a.har"))
    }
}

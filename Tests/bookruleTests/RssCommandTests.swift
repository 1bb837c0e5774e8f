import Foundation
import Testing
import TestSupport
@testable import bookrule

@Suite("bookrule rss on saved pages")
struct RssCommandTests {
    func run(_ words: [String]) async -> (status: Int32, output: String, errors: String) { await runCommand(words) }

    /// A file with a book source and two RSS sources (a feed, and a page read by rules), a saved feed, a saved
    /// list page and a saved article page.
    func fixture() throws -> (ScratchDirectory, source: String, feed: String, list: String, article: String) {
        let directory = try ScratchDirectory("rss")
        let source = directory.path + "/sources.json"
        try """
        [{"bookSourceUrl": "https://novel.test", "bookSourceName": "书源"},
         {"sourceUrl": "https://news.test/", "sourceName": "Feed", "sortUrl": "要闻::/rss.xml\\n国际::/world.xml"},
         {"sourceUrl": "https://blog.test/", "sourceName": "Blog", "ruleArticles": "//article",
          "ruleTitle": "//h2/text()", "ruleLink": "//a/@href", "ruleContent": "//div[@class='body']/p/html()",
          "ruleNextPage": "//a[@rel='next']/@href"}]
        """.write(toFile: source, atomically: true, encoding: .utf8)
        let feed = directory.path + "/rss.xml"
        try """
        <?xml version="1.0" encoding="UTF-8"?><rss version="2.0"><channel><title>News</title>
        <item><title>头条</title><link>https://news.test/a/1</link><pubDate>Mon, 07 Dec 2026 08:00:00 GMT</pubDate>
        <description><![CDATA[<p>第一段</p><p>第二段</p>]]></description><enclosure url="https://news.test/1.jpg" type="image/jpeg"/></item>
        <item><title>次条</title><link>https://news.test/a/2</link></item></channel></rss>
        """.write(toFile: feed, atomically: true, encoding: .utf8)
        let list = directory.path + "/list.html"
        try """
        <html><body><article><h2>文章一</h2><a href="/post/1.html">more</a></article>
        <a rel="next" href="/page/2/">next</a></body></html>
        """.write(toFile: list, atomically: true, encoding: .utf8)
        let article = directory.path + "/post.html"
        try """
        <html><body><div class="body"><p>正文一</p><p class="ad">广告</p><p>正文二</p></div></body></html>
        """.replacingOccurrences(of: "<p class=\"ad\">广告</p>", with: "<aside>广告</aside>")
            .write(toFile: article, atomically: true, encoding: .utf8)
        return (directory, source, feed, list, article)
    }

    @Test("--source alone lists the sorts; the book source of the mixed file is set aside, saying so")
    func listsSorts() async throws {
        let (directory, source, _, _, _) = try fixture()
        _ = directory
        let result = await run(["rss", "--source", source, "--source-name", "Feed"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.split(separator: "\n").map(String.init) == [
            "要闻  https://news.test/rss.xml", "国际  https://news.test/world.xml",
            "2 sort(s); list a sort's articles with --sort NAME (--page 1: the first sort's)",
        ])
        #expect(result.errors.contains("also holds 1 book source(s), set aside"), "\(result.errors)")
    }

    @Test("--sort NAME --json prints the articles and nextPage in the documented shape")
    func articlesAsJSON() async throws {
        let (directory, source, feed, _, _) = try fixture()
        _ = directory
        let result = await run(["rss", "--source", source, "--source-name", "Feed", "--sort", "要闻", "--json",
                                "--saved", "https://news.test/rss.xml=\(feed)"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output == """
        {
          "articles": [
            {
              "description": "<p>第一段</p><p>第二段</p>",
              "image": "https://news.test/1.jpg",
              "link": "https://news.test/a/1",
              "pubDate": "Mon, 07 Dec 2026 08:00:00 GMT",
              "sort": "要闻",
              "title": "头条"
            },
            {
              "description": null,
              "image": null,
              "link": "https://news.test/a/2",
              "pubDate": null,
              "sort": "要闻",
              "title": "次条"
            }
          ],
          "nextPage": null
        }

        """)
        let read = await run(["rss", "--source", source, "--source-name", "Feed", "--read", "https://news.test/a/1",
                              "--saved", "https://news.test/rss.xml=\(feed)"])
        #expect(read.status == 0, "\(read.errors)")
        #expect(read.output == "头条\n\n第一段\n第二段\n", "without ruleContent the description, cleaned")
        let unknown = await run(["rss", "--source", source, "--source-name", "Feed", "--sort", "体育"])
        #expect(unknown.status == 2 && unknown.errors.contains("no sort called \"体育\"; it has: \"要闻\", \"国际\""), "\(unknown.errors)")
    }

    @Test("a page read by rules: the list with its next page, and --read an article with ruleContent")
    func rulesAndRead() async throws {
        let (directory, source, _, list, article) = try fixture()
        _ = directory
        let result = await run(["rss", "--source", source, "--source-name", "Blog", "--page", "1",
                                "--saved", "https://blog.test/=\(list)"])
        #expect(result.status == 0, "\(result.errors)")
        #expect(result.output.split(separator: "\n").map(String.init) == [
            "1. 文章一", "   https://blog.test/post/1.html", "1 article(s) from https://blog.test/",
            "next: --next https://blog.test/page/2/",
        ])
        let read = await run(["rss", "--source", source, "--source-name", "Blog", "--read", "https://blog.test/post/1.html",
                              "--saved", "https://blog.test/post/1.html=\(article)"])
        #expect(read.status == 0, "\(read.errors)")
        #expect(read.output == "正文一\n正文二\n")
    }

    @Test("lint checks RSS sources too: each field's problem named by its path, the file's verdict counting both kinds")
    func lint() async throws {
        let directory = try ScratchDirectory("rss-lint")
        let path = directory.path + "/mixed.json"
        try """
        [{"bookSourceUrl": "https://novel.test", "bookSourceName": "书源"},
         {"sourceUrl": "https://news.test/", "sourceName": "Good", "ruleArticles": "//li", "ruleTitle": "//a/text()"},
         {"sourceUrl": "https://bad.test/", "sourceName": "Bad", "ruleArticles": "//li[", "enabled": [],
          "sortUrl": "@js:return ("}]
        """.write(toFile: path, atomically: true, encoding: .utf8)
        let result = await run(["lint", path])
        #expect(result.status == 1)
        #expect(result.output.contains("\(path): 1 source(s), 1 fully usable; 2 RSS source(s), 1 fully usable"), "\(result.output)")
        #expect(result.output.contains("  ok    [1] Good (RSS)"), "\(result.output)")
        #expect(result.output.contains("  FAIL  [2] Bad (RSS): 3 problem(s)"), "\(result.output)")
        for field in ["[2].ruleArticles", "[2].enabled", "[2].sortUrl"] {
            #expect(result.output.contains(": \(field)"), "\(field) in \(result.output)")
        }
        let rssOnly = directory.path + "/rss.json"
        try #"{"sourceUrl": "https://news.test/", "sourceName": "Good"}"#.write(toFile: rssOnly, atomically: true, encoding: .utf8)
        let clean = await run(["lint", rssOnly])
        #expect(clean.status == 0)
        #expect(clean.output.hasPrefix("\(rssOnly): 1 RSS source(s), 1 fully usable\n  ok    Good (RSS)"), "\(clean.output)")
    }

    @Test("bookrule test checks RSS sources on their fixtures: sorts, articles, an article's text; a missing fixture fails")
    func testCommand() async throws {
        let (directory, source, feed, _, _) = try fixture()
        _ = directory
        let rssOnly = directory.path + "/feed.json"
        try #"{"sourceUrl": "https://news.test/", "sourceName": "Feed", "sortUrl": "要闻::/rss.xml"}"#
            .write(toFile: rssOnly, atomically: true, encoding: .utf8)
        let passed = await run(["test", rssOnly, "--saved", "https://news.test/rss.xml=\(feed)"])
        #expect(passed.status == 0, "\(passed.errors)")
        #expect(passed.errors.contains("PASS  Feed (RSS)\n      ok   sorts: 1 sort(s)\n      ok   articles: 2 article(s) on https://news.test/rss.xml"),
                "\(passed.errors)")
        #expect(passed.errors.contains("ok   text: 7 character(s) of \"头条\" from its description"), "\(passed.errors)")
        let missing = await run(["test", rssOnly, "--fixtures", directory.path + "/none"])
        #expect(missing.status == 1)
        #expect(missing.errors.contains("FAIL  Feed (RSS): no fixture in \(directory.path)/none"), "\(missing.errors)")
        _ = source
    }

    @Test("a file of RSS sources only is refused by the book-source commands, naming bookrule rss")
    func bookCommandsRefuseRss() async throws {
        let directory = try ScratchDirectory("rss-only")
        let path = directory.path + "/rss.json"
        try #"{"sourceUrl": "https://news.test/", "sourceName": "Feed"}"#.write(toFile: path, atomically: true, encoding: .utf8)
        let result = await run(["info", "--source", path, "https://news.test/a"])
        #expect(result.status == 2)
        #expect(result.errors.contains("holds 1 RSS source(s) (sourceUrl and sourceName) and no book source; read them with bookrule rss --source"), "\(result.errors)")
    }
}

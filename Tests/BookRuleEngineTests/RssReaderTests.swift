import Foundation
import BookRuleDocument
import BookRuleJSON
import BookRuleHTTP
import BookRuleEngine
import Testing
import TestSupport

/// A loopback news site: path → (Content-Type, body); anything else 404. Serves at most `maxRequests`; its
/// lifetime only ends a server a failed test left behind (30 s once ran out under a loaded suite before the test
/// was done with it).
private func newsSite(maxRequests: Int, _ pages: @escaping @Sendable (UInt16) throws -> [String: (String, [UInt8])]) throws -> LoopbackServer {
    try LoopbackServer(maxConnections: maxRequests, lifetime: 120) { request, port in
        guard let page = (try? pages(port))?[request.target] else { return LoopbackServer.reply(404, "Not Found") }
        return LoopbackServer.reply(200, "OK", headers: [("Content-Type", page.0)], body: page.1)
    }
}

private func fetcher(delay: Duration = .zero) -> PoliteFetcher {
    PoliteFetcher(transport: CurlTransport(), policy: PolitenessPolicy(delay: delay, failureDelay: .zero, jitter: false))
}

private func rssSource(_ json: String) throws -> RssSource {
    guard let source = try SourceFile.load(bytes: Array(json.utf8), path: "rss.json").rssSources.first else {
        throw TestFailure("no RSS source")
    }
    #expect(source.problems.isEmpty, "\(source.problems)")
    return source
}

@Suite("RSS sources against loopback sites: feeds, rules, paging, article text")
struct RssReaderTests {
    static func rss2(_ base: String) -> String {
        """
        <?xml version="1.0" encoding="UTF-8"?>
        <rss version="2.0" xmlns:media="http://search.yahoo.com/mrss/" xmlns:content="http://purl.org/rss/1.0/modules/content/">
        <channel><title>频道标题</title><link>\(base)/</link><description>频道</description>
        <item><title>第一条 &amp; 更多</title><link>\(base)/a/1.html</link>
          <pubDate>Mon, 07 Dec 2026 08:00:00 +0800</pubDate>
          <description><![CDATA[<p>摘要一</p><img class="x" src="/img/1.jpg"><img src="/img/2.jpg">]]></description></item>
        <item><title>Second</title><link> a/2.html </link><pubDate>Sun, 06 Dec 2026 08:00:00 +0800</pubDate>
          <enclosure url="\(base)/e.jpg" type="image/jpeg" length="10"/><description>plain text</description></item>
        <item><title>Third</title><link>\(base)/a/3.html</link><media:thumbnail url="\(base)/t.jpg"/>
          <description>&lt;img src="\(base)/d.jpg"&gt;</description>
          <content:encoded><![CDATA[<p>全文</p>]]></content:encoded></item>
        <item><title>Audio</title><link>\(base)/a/4.html</link><enclosure url="\(base)/x.mp3" type="audio/mpeg"/></item>
        </channel></rss>
        """
    }

    static let atom = """
        <?xml version="1.0" encoding="utf-8"?>
        <feed xmlns="http://www.w3.org/2005/Atom" xmlns:media="http://search.yahoo.com/mrss/">
        <title>Atom feed</title><link href="https://news.example/"/>
        <entry><title>Atom one</title><link rel="self" href="https://news.example/self"/>
          <link rel="alternate" href="https://news.example/1"/><published>2026-12-01T10:00:00Z</published>
          <updated>2026-12-02T00:00:00Z</updated><summary>Short</summary>
          <media:content url="https://news.example/m.png" medium="image"/></entry>
        <entry><title type="html">Atom two</title><link href="https://news.example/2"/><updated>2026-12-03T00:00:00Z</updated>
          <content type="xhtml"><div xmlns="http://www.w3.org/1999/xhtml"><p>Body <img src="https://news.example/c.png"/></p></div></content></entry>
        </feed>
        """

    static let rdf = """
        <?xml version="1.0"?>
        <rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns="http://purl.org/rss/1.0/" xmlns:dc="http://purl.org/dc/elements/1.1/">
        <channel rdf:about="https://r.example/"><title>RDF</title><link>https://r.example/</link></channel>
        <item rdf:about="https://r.example/1"><title>R1</title><link>https://r.example/1</link><dc:date>2026-12-01</dc:date>
          <description>d1</description></item>
        </rdf:RDF>
        """

    @Test("RSS 2.0, Atom 1.0 and RSS 1.0 feeds: titles, links, dates, descriptions, pictures as RssParserDefault finds them")
    func feeds() async throws {
        let server = try newsSite(maxRequests: 6) { port in
            let base = "http://127.0.0.1:\(port)"
            return ["/rss.xml": ("application/rss+xml", Array(Self.rss2(base).utf8)),
                    "/atom.xml": ("application/atom+xml", Array(Self.atom.utf8)),
                    "/rdf.xml": ("application/xml", Array(Self.rdf.utf8))]
        }
        let base = "http://127.0.0.1:\(server.port)"
        let source = try rssSource("""
            {"sourceUrl": "\(base)/", "sourceName": "Feeds", "sortUrl": "RSS::/rss.xml\\nAtom::/atom.xml\\nRDF::rdf.xml"}
            """)
        let reader = RssReader(source: source, transport: fetcher())
        let sorts = try await reader.sorts()
        #expect(sorts.map(\.name) == ["RSS", "Atom", "RDF"] && sorts[2].url == base + "/rdf.xml")

        let rss = try await reader.articles(in: sorts[0])
        #expect(rss.readAsFeed && rss.nextPage == nil)
        #expect(rss.articles.map(\.title) == ["第一条 & 更多", "Second", "Third", "Audio"])
        #expect(rss.articles.map(\.link) == [base + "/a/1.html", base + "/a/2.html", base + "/a/3.html", base + "/a/4.html"])
        #expect(rss.articles.map(\.pubDate) == ["Mon, 07 Dec 2026 08:00:00 +0800", "Sun, 06 Dec 2026 08:00:00 +0800", nil, nil])
        #expect(rss.articles[0].description == #"<p>摘要一</p><img class="x" src="/img/1.jpg"><img src="/img/2.jpg">"#)
        #expect(rss.articles[1].description == "plain text")
        // The description's first <img>, a picture enclosure, media:thumbnail over the description's picture;
        // an audio enclosure is no picture.
        #expect(rss.articles.map(\.image) == [base + "/img/1.jpg", base + "/e.jpg", base + "/t.jpg", nil])
        #expect(rss.articles[2].content == "<p>全文</p>")
        #expect(rss.articles.allSatisfy { $0.sort == "RSS" && $0.origin == base + "/" })

        let atom = try await reader.articles(in: sorts[1])
        #expect(atom.articles.map(\.title) == ["Atom one", "Atom two"])
        #expect(atom.articles.map(\.link) == ["https://news.example/1", "https://news.example/2"])
        #expect(atom.articles.map(\.pubDate) == ["2026-12-01T10:00:00Z", "2026-12-03T00:00:00Z"])
        #expect(atom.articles[0].description == "Short" && atom.articles[0].image == "https://news.example/m.png")
        #expect(atom.articles[1].description?.contains("<p>Body <img src=\"https://news.example/c.png\"/></p>") == true)
        #expect(atom.articles[1].image == "https://news.example/c.png")

        let rdf = try await reader.articles(in: sorts[2])
        #expect(rdf.articles == [RssArticle(title: "R1", link: "https://r.example/1", pubDate: "2026-12-01", description: "d1",
                                            sort: "RDF", origin: base + "/")])

        // A feed without ruleContent is read from its description, cleaned as a chapter is.
        let text = try await reader.text(of: rss.articles[0])
        #expect(text.text == "摘要一\n<img src=\"\(base)/img/1.jpg\">\n<img src=\"\(base)/img/2.jpg\">")
        #expect(server.requests.map(\.target) == ["/rss.xml", "/atom.xml", "/rdf.xml"], "the description costs no request")

        let json = try JSONWriter.string(rdf)
        #expect(json == #"{"articles":[{"description":"d1","image":null,"link":"https://r.example/1","pubDate":"2026-12-01","sort":"RDF","title":"R1"}],"nextPage":null}"#)
    }

    /// A GBK list page of `sort`, page `page`: three articles, relative links, a next link on page 1.
    static func listPage(_ sort: String, _ page: Int) throws -> [UInt8] {
        let items = (1...3).map { index in
            "<li><a href='art/\(sort)-\(page)-\(index).html'>\(sort)新闻\(page)-\(index)</a><span>2026-12-0\(index)</span>"
                + "<img src='/pic/\(index).jpg'><p>摘要\(index)</p></li>"
        }
        let next = page == 1 ? "<a class='next' href='\(page + 1).html'>下一页</a>" : ""
        return try gbk("""
            <html><head><meta charset="gbk"><title>\(sort)</title></head><body><ul class="list">\(items.joined())
            <li><span>没有标题的条目</span></li></ul>\(next)</body></html>
            """)
    }

    static func articlePage(_ title: String) throws -> [UInt8] {
        try gbk("""
            <html><head><meta http-equiv="Content-Type" content="text/html; charset=gb2312"></head><body>
            <h1>\(title)</h1><div id="content"><p>第一段，中文。</p><div class="ad">广告：买一送一</div>
            <p>第二段<img src="/pic/in.png"></p></div></body></html>
            """)
    }

    @Test("rules on a GBK site: two sorts, reversed lists, links resolved against the page, ruleNextPage, ruleContent without the ad, paced", .tags(.realTime))
    func rulesOnGBKPages() async throws {
        let server = try newsSite(maxRequests: 8) { _ in
            ["/news/1.html": ("text/html", try Self.listPage("news", 1)),
             "/news/2.html": ("text/html", try Self.listPage("news", 2)),
             "/sport/1.html": ("text/html", try Self.listPage("sport", 1)),
             "/news/art/news-1-2.html": ("text/html", try Self.articlePage("news 1-2"))]
        }
        let base = "http://127.0.0.1:\(server.port)"
        let source = try rssSource("""
            {"sourceUrl": "\(base)", "sourceName": "GBK 新闻", "sortUrl": "新闻::/news/1.html&&体育::/sport/1.html",
             "ruleArticles": "-//ul[@class='list']/li", "ruleTitle": "tag.a@text", "rulePubDate": "//span/text()",
             "ruleDescription": "//p/text()", "ruleImage": "tag.img@src", "ruleLink": "//a/@href",
             "ruleNextPage": "//a[@class='next']/@href", "ruleContent": "//div[@id='content']/p/html()"}
            """)
        let reader = RssReader(source: source, transport: fetcher(delay: .milliseconds(300)))
        let news = try await reader.sort(named: "新闻")
        let clock = ContinuousClock()
        let start = clock.now
        let first = try await reader.articles(in: news)
        #expect(!first.readAsFeed)
        #expect(first.articles.map(\.title) == ["news新闻1-3", "news新闻1-2", "news新闻1-1"], "reversed; the untitled element left out")
        #expect(first.articles.map(\.link) == (1...3).reversed().map { "\(base)/news/art/news-1-\($0).html" })
        #expect(first.articles.map(\.pubDate) == ["2026-12-03", "2026-12-02", "2026-12-01"])
        #expect(first.articles.map(\.image) == (1...3).reversed().map { "\(base)/pic/\($0).jpg" })
        #expect(first.articles.map(\.description) == ["摘要3", "摘要2", "摘要1"])
        #expect(first.nextPage == base + "/news/2.html")
        let second = try await reader.articles(at: try #require(first.nextPage), sort: news.name)
        #expect(clock.now - start >= .milliseconds(300), "the second request to the host waited the polite gap")
        #expect(second.articles.map(\.title) == ["news新闻2-3", "news新闻2-2", "news新闻2-1"] && second.nextPage == nil)
        #expect(second.articles.allSatisfy { $0.sort == "新闻" })

        let sport = try await reader.articles(in: try await reader.sort(named: "体育"))
        #expect(sport.articles.first?.link == base + "/sport/art/sport-1-3.html")

        let text = try await reader.text(of: try #require(first.articles.dropFirst().first))
        #expect(text.text == "第一段，中文。\n第二段\n<img src=\"\(base)/pic/in.png\">")
        #expect(text.title == "news新闻1-2" && text.pages == [base + "/news/art/news-1-2.html"])
        #expect(server.requests.count == 4)

        await #expect(throws: RssError.unknownSort("财经", known: ["新闻", "体育"])) { try await reader.sort(named: "财经") }
    }

    @Test("ruleNextPage PAGE pages by {{page}} in the sort URL; a sortUrl script gives the sorts; a page that is no feed says so")
    func pagingByNumberAndScripts() async throws {
        let server = try newsSite(maxRequests: 6) { _ in
            ["/list/1.html": ("text/html; charset=utf-8", Array("<ul><li><a href='/x/1'>一</a></li></ul>".utf8)),
             "/list/2.html": ("text/html; charset=utf-8", Array("<ul><li><a href='/x/2'>二</a></li></ul>".utf8)),
             "/page.html": ("text/html", Array("<html><body>not a feed</body></html>".utf8))]
        }
        let base = "http://127.0.0.1:\(server.port)"
        let source = try rssSource("""
            {"sourceUrl": "\(base)/", "sourceName": "Paged", "sortUrl": "@js:'列表::/list/{{page}}.html\\\\n页面::/page.html'",
             "ruleArticles": "//li", "ruleTitle": "tag.a@text", "ruleLink": "tag.a@href", "ruleNextPage": "PAGE"}
            """)
        #expect(source.hasScripts)
        let reader = RssReader(source: source, transport: fetcher())
        let sorts = try await reader.sorts()
        #expect(sorts == [RssSort(name: "列表", url: base + "/list/{{page}}.html"), RssSort(name: "页面", url: base + "/page.html")])
        let one = try await reader.articles(in: sorts[0], page: 1)
        let two = try await reader.articles(in: sorts[0], page: 2)
        #expect(one.articles.map(\.title) == ["一"] && two.articles.map(\.link) == [base + "/x/2"])
        #expect(one.nextPage == sorts[0].url, "PAGE: the next page is the sort URL with the next page number")

        let feedOnly = try rssSource(#"{"sourceUrl": "\#(base)/page.html", "sourceName": "Not a feed"}"#)
        let page = try await RssReader(source: feedOnly, transport: fetcher()).articles(in: RssSort(name: "", url: feedOnly.url))
        #expect(page.articles.isEmpty, "an HTML page read as a feed has no items (Legado's parser finds none either)")
        await #expect(throws: RssError.nothingToRead(link: base + "/x/1")) {
            try await RssReader(source: feedOnly, transport: fetcher()).text(of: RssArticle(title: "一", link: base + "/x/1"))
        }
    }
}

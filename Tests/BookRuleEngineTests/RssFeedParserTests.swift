@testable import BookRuleEngine
import Testing
import TestSupport

@Suite("RSS feeds: hostile and odd XML")
struct RssFeedParserTests {
    @Test("entities a DTD declares are neither expanded (billion laughs) nor loaded from files", .tags(.realTime))
    func hostileEntities() throws {
        let laughs = (1...9).map { level in
            "<!ENTITY lol\(level) \"" + String(repeating: "&lol\(level - 1);", count: 10) + "\">"
        }.joined()
        let feed = """
        <?xml version="1.0"?><!DOCTYPE rss [<!ENTITY lol0 "lol">\(laughs)<!ENTITY file SYSTEM "file:///etc/passwd">]>
        <rss><channel><item><link>https://x.test/1</link><description>[&file;]</description><title>A &lol9; B</title></item></channel></rss>
        """
        let clock = ContinuousClock()
        let start = clock.now
        let articles = try #require(RssFeedParser.articles(utf8: Array(feed.utf8), url: "https://x.test/feed", sort: "", origin: ""))
        #expect(clock.now - start < TestTime.bound(.seconds(2)))
        #expect(articles.count == 1)
        #expect(articles.first.map { $0.title.utf8.count < 100 } == true, "\(articles.first?.title.prefix(80) ?? "")")
        #expect(articles.first?.description == "[]", "an external entity is not loaded")
        #expect(articles.first?.link == "https://x.test/1")
    }

    @Test("broken markup is recovered, case is ignored, nested media groups are read, an audio enclosure is no picture")
    func oddFeeds() throws {
        let feed = """
        <RSS><CHANNEL><ITEM><TITLE>Upper & broken</TITLE><LINK>/rel</LINK>
        <media:group xmlns:media="http://search.yahoo.com/mrss/"><media:content url="/g.jpg" type="image/jpeg"/></media:group>
        <enclosure url="/a.mp3" type="audio/mpeg"/></ITEM>
        <item><title>Second</title><description>&lt;p&gt;no picture&lt;/p&gt;</description></item>
        """
        let articles = try #require(RssFeedParser.articles(utf8: Array(feed.utf8), url: "https://x.test/f/feed.xml", sort: "s", origin: "o"))
        #expect(articles.first?.link == "https://x.test/rel")
        #expect(articles.first?.image == "https://x.test/g.jpg")
        #expect(articles.first?.title.hasPrefix("Upper") == true)
        #expect(articles.count == 2 && articles[1].image == nil && articles[1].description == "<p>no picture</p>", "\(articles)")
        #expect(RssFeedParser.articles(utf8: Array("not xml at all".utf8), url: "https://x.test/", sort: "", origin: "") == nil)
        let query = #"<rss><item><title>Q &amp; A</title><link>https://x.test/?a=1&b=2;c=3&d</link></item></rss>"#
        #expect(try #require(RssFeedParser.articles(utf8: Array(query.utf8), url: "https://x.test/", sort: "", origin: "")).first?.link
                == "https://x.test/?a=1&b=2;c=3&d", "an ampersand that starts no reference is text")
        #expect(RssFeedParser.firstImage(in: #"<p><img alt="a" src = "one.png"><img src="two.png">"#) == "one.png")
        #expect(RssFeedParser.firstImage(in: #"<IMG SRC="upper.png">"#) == nil, "Legado's pattern is lower case")
    }
}

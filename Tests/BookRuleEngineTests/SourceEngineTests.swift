import Testing
@testable import BookRuleCheck
@testable import BookRuleEngine
@testable import BookRuleHTTP
@testable import BookRuleJSON
@testable import BookRuleRules
import TestSupport

@Suite("SourceEngine on in-memory sites")
struct SourceEngineTests {
    static let source = """
    {
      "bookSourceUrl": "https://novel.test",
      "bookSourceName": "Novel Test",
      "searchUrl": "/search.php,{'method':'POST','body':'searchkey={{key}}','charset':'gbk'}",
      "ruleSearch": {
        "bookList": "//table[@class='grid']//tr[td]",
        "name": "//td[1]/a/text()",
        "author": "//td[2]/text()",
        "bookUrl": "//td[1]/a/@href",
        "lastChapter": "//td[3]/text()"
      },
      "ruleBookInfo": "{\\"name\\": \\"//h1/text()\\", \\"author\\": \\"//meta[@property='og:novel:author']/@content\\", \\"intro\\": \\"//div[@id='intro']\\", \\"tocUrl\\": \\"//a[@id='toc']/@href\\"}",
      "ruleToc": {
        "chapterList": "//div[@id='list']/dl/dt[last()]/following-sibling::dd/a",
        "chapterName": "@js:result.replace(",
        "chapterUrl": "@js:java.startBrowserDp(baseUrl, 'x')",
        "nextTocUrl": "//a[@class='next']/@href"
      },
      "ruleContent": {
        "content": "//div[@id='content']",
        "nextContentUrl": "//a[@id='next']/@href",
        "replaceRegex": "##本站.*?最快更新|请记住网址"
      },
      "someUnknownKey": {"kept": true}
    }
    """

    @Test("unknown keys are kept and the source loads without problems")
    func loads() throws {
        let source = try loadSource(Self.source.replacingOccurrences(of: "\"@js:result.replace(\"", with: "\"/text()\"")
            .replacingOccurrences(of: "\"@js:java.startBrowserDp(baseUrl, 'x')\"", with: "\"/@href\""))
        #expect(source.problems.isEmpty, "\(source.problems)")
        #expect(source.json["someUnknownKey"] != nil)
        #expect(source.name == "Novel Test")
    }

    @Test("rule objects given as JSON strings are read")
    func stringSections() throws {
        let source = try loadSource(Self.source)
        #expect(source.bookInfo[.name]?.text == "//h1/text()")
    }

    @Test("JavaScript that cannot run is reported at load with its path and why; the other steps still run")
    func problemsPerField() throws {
        let source = try loadSource(Self.source)
        let descriptions = source.problems.map(\.description)
        #expect(descriptions.count == 2)
        #expect(descriptions.first?.hasPrefix("ruleToc.chapterName (JavaScript): JavaScript syntax error in @js: at line 1") == true,
                "\(descriptions)")
        #expect(descriptions.last?.hasPrefix("ruleToc.chapterUrl (JavaScript): java.startBrowser") == true, "\(descriptions)")
        #expect(source.problems.first?.location == SourceLocation(line: 15, column: 20))
        #expect(source.toc[.chapterName] == nil && source.search[.name] != nil)
    }

    func usableSource() throws -> BookSource {
        try loadSource(Self.source.replacingOccurrences(of: "\"@js:result.replace(\"", with: "\"/text()\"")
            .replacingOccurrences(of: "\"@js:java.startBrowserDp(baseUrl, 'x')\"", with: "\"/@href\""))
    }

    @Test("search posts the key in GBK and reads a GBK results page")
    func search() async throws {
        let results = try gbk("""
        <html><head><meta charset="gbk"></head><body><table class="grid">
        <tr><th>书名</th><th>作者</th></tr>
        <tr><td><a href="/book/1/">斗破苍穹</a></td><td>天蚕土豆</td><td>第一千章</td></tr>
        <tr><td><a href="https://novel.test/book/2/">斗罗大陆</a></td><td>唐家三少</td><td></td></tr>
        </table></body></html>
        """)
        let site = TestSite(["https://novel.test/search.php": .init(body: results)])
        let engine = SourceEngine(source: try usableSource(), transport: site)
        let page = try await engine.search(key: "斗破")
        #expect(site.requests.first?.body == Array("searchkey=%B6%B7%C6%C6".utf8))
        #expect(site.requests.first?.method == "POST")
        #expect(page.results.map(\.name) == ["斗破苍穹", "斗罗大陆"])
        #expect(page.results.map(\.author) == ["天蚕土豆", "唐家三少"])
        #expect(page.results.map(\.bookURL) == ["https://novel.test/book/1/", "https://novel.test/book/2/"])
        #expect(page.results[0].lastChapter == "第一千章")
    }

    @Test("book info reads fields and resolves the TOC URL")
    func bookInfo() async throws {
        let site = TestSite(html: ["https://novel.test/book/1/": """
            <html><head><meta property="og:novel:author" content=" 天蚕土豆 "></head><body>
            <h1>斗破苍穹</h1><div id="intro">&nbsp;&nbsp;第一段。<br>　　第二段。<script>ad()</script></div>
            <a id="toc" href="list/">目录</a></body></html>
            """])
        let info = try await SourceEngine(source: try usableSource(), transport: site).bookInfo(url: "/book/1/")
        #expect(info.name == "斗破苍穹")
        #expect(info.author == "天蚕土豆")
        #expect(info.intro == "第一段。\n第二段。")
        #expect(info.tocURL == "https://novel.test/book/1/list/")
    }

    static func tocPage(_ chapters: [Int], next: String?) -> String {
        let latest = "<dt>最新章节</dt><dd><a href='/c/99.html'>第99章</a></dd>"
        let items = chapters.map { "<dd><a href='/c/\($0).html'>第\($0)章</a></dd>" }.joined()
        let link = next.map { "<a class='next' href='\($0)'>下一页</a>" } ?? ""
        return "<html><body><div id='list'><dl>\(latest)<dt>正文</dt>\(items)</dl></div>\(link)</body></html>"
    }

    @Test("TOC paging terminates on a loop A→B→A, skips the latest block, de-duplicates by URL")
    func tocLoop() async throws {
        let site = TestSite(html: [
            "https://novel.test/toc/a.html": Self.tocPage([1, 2], next: "b.html"),
            "https://novel.test/toc/b.html": Self.tocPage([2, 3], next: "a.html"),
        ])
        let toc = try await SourceEngine(source: try usableSource(), transport: site).toc(url: "https://novel.test/toc/a.html")
        #expect(toc.chapters.map(\.title) == ["第1章", "第2章", "第3章"])
        #expect(toc.chapters.map(\.index) == [0, 1, 2])
        #expect(toc.chapters.last?.url == "https://novel.test/c/3.html")
        #expect(toc.pages == ["https://novel.test/toc/a.html", "https://novel.test/toc/b.html"])
        #expect(site.requests.count == 2)
        #expect(toc.warnings == ["dropped 1 chapter(s) whose URL is listed again later"])
    }

    @Test("a latest-chapters block above the full list drops out: duplicates keep their last place, as in Legado")
    func duplicatesKeepLastPlace() async throws {
        let source = try loadSource("""
        {"bookSourceUrl": "https://novel.test",
         "ruleToc": {"chapterList": "//dd/a", "chapterName": "/text()", "chapterUrl": "/@href##$##,{'webView': true}"}}
        """)
        let html = "<dl><dt>最新</dt><dd><a href='/c/3.html'>第3章</a></dd><dd><a href='/c/2.html'>第2章</a></dd>"
            + "<dt>正文</dt><dd><a href='/c/1.html'>第1章</a></dd><dd><a href='/c/2.html'>第2章</a></dd>"
            + "<dd><a href='/c/3.html'>第3章</a></dd></dl>"
        let toc = try await SourceEngine(source: source, transport: TestSite(html: ["https://novel.test/toc": html]))
            .toc(url: "https://novel.test/toc")
        #expect(toc.chapters.map(\.title) == ["第1章", "第2章", "第3章"])
        #expect(toc.chapters.map(\.index) == [0, 1, 2])
        #expect(toc.droppedDuplicates == 2)
        // Legado's request options after a chapter URL are not part of the address; those asking for a browser
        // stay after it, for the content step that renders the page.
        #expect(toc.chapters.map(\.url) == ["https://novel.test/c/1.html", "https://novel.test/c/2.html", "https://novel.test/c/3.html"]
            .map { $0 + ",{'webView': true}" })
    }

    @Test("a page whose <meta> says gbk but whose bytes are UTF-8 is read as UTF-8, and the TOC says so")
    func overruledCharsetIsReported() async throws {
        let meta = "<html><head><meta http-equiv='Content-Type' content='text/html; charset=gbk'></head><body>"
        let utf8Page = meta + "<div id='list'><dl><dt>正文</dt><dd><a href='/c/1.html'>第1章 开始</a></dd></dl></div></body></html>"
        let gbkPage = try gbk(meta + "<div id='list'><dl><dt>正文</dt><dd><a href='/c/2.html'>第2章 继续</a></dd></dl></div></body></html>")
        let site = TestSite([
            "https://novel.test/toc/utf8.html": .init(body: Array(utf8Page.utf8)),
            "https://novel.test/toc/gbk.html": .init(body: gbkPage),
        ])
        let engine = SourceEngine(source: try usableSource(), transport: site)
        let resaved = try await engine.toc(url: "https://novel.test/toc/utf8.html")
        #expect(resaved.chapters.map(\.title) == ["第1章 开始"])
        #expect(resaved.warnings == [
            "https://novel.test/toc/utf8.html: decoded as UTF-8: <meta> tag says gbk but the bytes are valid UTF-8",
        ])
        let honest = try await engine.toc(url: "https://novel.test/toc/gbk.html")
        #expect(honest.chapters.map(\.title) == ["第2章 继续"])
        #expect(honest.warnings.isEmpty)
    }

    @Test("chapter titles keep a trailing IDEOGRAPHIC SPACE as Legado does (jsoup's text() keeps it); names do not")
    func ideographicSpaceInTitles() async throws {
        let source = try loadSource("""
        {"bookSourceUrl": "https://novel.test",
         "ruleBookInfo": {"name": "tag.h1@text", "author": "//p[@class='author']/text()"},
         "ruleToc": {"chapterList": "tag.dd", "chapterName": "tag.a@text", "chapterUrl": "tag.a@href",
                     "updateTime": "tag.span@text"},
         "ruleContent": {"content": "id.content@html", "title": "tag.h1@ownText"}}
        """)
        let html = "<h1>\u{3000}书名\u{3000}</h1><p class='author'>\u{3000}作者\u{3000}</p><dl>"
            + "<dd><a href='/c/1.html'> 第053章：维C\u{3000}</a><span>\u{3000}2017\u{3000}</span></dd>"
            + "<dd><a href='/c/2.html'>&nbsp;第054章\u{3000}<b>上</b>&nbsp;</a></dd></dl>"
        let chapter = "<h1>\u{3000}第一章\u{3000}<small>x</small></h1><div id='content'>\u{3000}\u{3000}正文。\u{3000}</div>"
        let site = TestSite(html: ["https://novel.test/book": html, "https://novel.test/c/1.html": chapter])
        let engine = SourceEngine(source: source, transport: site)
        let info = try await engine.bookInfo(url: "https://novel.test/book")
        #expect(info.name == "书名")
        #expect(info.author == "作者")
        let toc = try await engine.toc(url: "https://novel.test/book")
        #expect(toc.chapters.map(\.title) == ["第053章：维C\u{3000}", "第054章\u{3000}上"])
        #expect(toc.chapters.first?.updateTime == "2017")
        let content = try await engine.content(of: toc.chapters[0])
        #expect(content.title == "\u{3000}第一章\u{3000}")
        // Paragraphs are still trimmed of full-width indents, as Legado's content processor does.
        #expect(content.text == "正文。")
    }

    @Test("TOC paging stops at the page cap with a warning")
    func tocCap() async throws {
        var pages: [String: String] = [:]
        for index in 1...5 { pages["https://novel.test/toc/\(index).html"] = Self.tocPage([index], next: "\(index + 1).html") }
        let engine = SourceEngine(source: try usableSource(), transport: TestSite(html: pages), options: EngineOptions(pageCap: 3))
        let toc = try await engine.toc(url: "https://novel.test/toc/1.html")
        #expect(toc.chapters.count == 3)
        #expect(toc.warnings.first?.hasPrefix("stopped after 3 TOC pages") == true)
    }

    @Test("several next-page links at once are all fetched, in order, without recursing")
    func tocSeveralNext() async throws {
        let first = Self.tocPage([1], next: nil).replacingOccurrences(
            of: "</body>", with: "<a class='next' href='2.html'>2</a><a class='next' href='3.html'>3</a></body>")
        let site = TestSite(html: [
            "https://novel.test/toc/1.html": first,
            "https://novel.test/toc/2.html": Self.tocPage([2], next: "9.html"),
            "https://novel.test/toc/3.html": Self.tocPage([3], next: "9.html"),
        ])
        let toc = try await SourceEngine(source: try usableSource(), transport: site).toc(url: "https://novel.test/toc/1.html")
        #expect(toc.chapters.map(\.title) == ["第1章", "第2章", "第3章"])
        #expect(!site.requests.contains { $0.url.hasSuffix("9.html") })
    }

    static func contentPage(_ text: String, next: String) -> String {
        """
        <html><body><div id="content">&nbsp;&nbsp;&nbsp;&nbsp;\(text)<br><br>　　本站首发最快更新<br/>请记住网址
        <script>document.write('ad')</script><p>　　段落&amp;结束</p></div><a id="next" href="\(next)">下一页</a></body></html>
        """
    }

    @Test("content paging follows next pages and stops at the next chapter's URL")
    func contentPaging() async throws {
        let site = TestSite(html: [
            "https://novel.test/c/1.html": Self.contentPage("第一页", next: "/c/1_2.html"),
            "https://novel.test/c/1_2.html": Self.contentPage("第二页", next: "/c/2.html"),
            "https://novel.test/c/2.html": Self.contentPage("下一章", next: "/c/2_2.html"),
        ])
        let engine = SourceEngine(source: try usableSource(), transport: site)
        let content = try await engine.content(of: Chapter(index: 0, title: "1", url: "https://novel.test/c/1.html"),
                                               next: Chapter(index: 1, title: "2", url: "https://novel.test/c/2.html"))
        #expect(content.text == "第一页\n段落&结束\n第二页\n段落&结束")
        #expect(content.pages == ["https://novel.test/c/1.html", "https://novel.test/c/1_2.html"])
        #expect(!site.requests.contains { $0.url == "https://novel.test/c/2.html" })
    }

    @Test("a step whose rules are unusable says which and why")
    func unusableStep() async throws {
        let engine = SourceEngine(source: try loadSource(Self.source), transport: TestSite(html: [:]))
        do {
            _ = try await engine.toc(url: "https://novel.test/toc/1.html")
            Issue.record("expected an error")
        } catch let error as EngineError {
            #expect(error.description.contains("ruleToc.chapterName (JavaScript): JavaScript syntax error"), "\(error)")
        }
    }

    @Test("an HTTP error status is an error naming the URL")
    func httpStatus() async throws {
        let engine = SourceEngine(source: try usableSource(), transport: TestSite(html: [:]))
        await #expect(throws: EngineError.self) { try await engine.bookInfo(url: "https://novel.test/missing") }
        do {
            _ = try await engine.bookInfo(url: "https://novel.test/missing")
        } catch {
            #expect("\(error)" == "https://novel.test/missing answered HTTP 404")
        }
    }
}

@Suite("JSON APIs through JSONPath rules")
struct JSONSourceTests {
    @Test("search on a JSON API: list, fields, {$.id} templates and {{$.x}} pieces")
    func jsonSearch() async throws {
        let source = try loadSource("""
        {"bookSourceUrl": "https://api.test", "searchUrl": "/search?q={{key}}",
         "ruleSearch": {"bookList": "$.data.list", "name": "$.name", "author": "@Json:$.author",
                        "bookUrl": "/book/{$.id}/", "kind": "{{$.tags}}", "coverUrl": "$.cover"}}
        """)
        #expect(source.problems.isEmpty, "\(source.problems)")
        let api = """
        {"code": 0, "data": {"list": [
          {"id": 7, "name": "星河旅人", "author": "青石", "tags": "玄幻", "cover": "https://img.test/7.jpg"},
          {"id": 8, "name": "长夜灯火", "author": "归途", "tags": "都市"}]}}
        """
        let site = TestSite(["https://api.test/search?q=%E6%98%9F": .init(
            headers: [HTTPHeader("Content-Type", "application/json")], body: Array(api.utf8))])
        let page = try await SourceEngine(source: source, transport: site).search(key: "星")
        #expect(page.results.map(\.name) == ["星河旅人", "长夜灯火"])
        #expect(page.results.map(\.author) == ["青石", "归途"])
        #expect(page.results.map(\.bookURL) == ["https://api.test/book/7/", "https://api.test/book/8/"])
        #expect(page.results.map(\.kind) == ["玄幻", "都市"])
        #expect(page.results[0].coverURL == "https://img.test/7.jpg")
    }

    @Test("rules without a prefix are JSONPath on JSON (as in Legado) and JSoup on pages")
    func unprefixedRulesFollowTheContent() async throws {
        let source = try loadSource("""
        {"bookSourceUrl": "https://api.test", "searchUrl": "/search?q={{key}}",
         "ruleSearch": {"bookList": "data.list[*]", "name": "name", "author": "info.author",
                        "bookUrl": "url", "kind": "@@tag.span@text"},
         "ruleBookInfo": {"name": "tag.h1@text", "author": "class.author@text"}}
        """)
        #expect(source.problems.isEmpty, "\(source.problems)")
        let api = """
        {"data": {"list": [
          {"name": "星河旅人", "info": {"author": "青石"}, "url": "/book/7/"},
          {"name": "长夜灯火", "info": {"author": "归途"}, "url": "/book/8/"}]}}
        """
        let site = TestSite([
            "https://api.test/search?q=%E6%98%9F": .init(
                headers: [HTTPHeader("Content-Type", "application/json")], body: Array(api.utf8)),
            "https://api.test/book/7/": .init(body: Array(
                "<html><body><h1>星河旅人</h1><p class='author'>青石</p></body></html>".utf8)),
        ])
        let engine = SourceEngine(source: source, transport: site)
        let page = try await engine.search(key: "星")
        #expect(page.results.map(\.name) == ["星河旅人", "长夜灯火"])
        #expect(page.results.map(\.author) == ["青石", "归途"])
        #expect(page.results.map(\.bookURL) == ["https://api.test/book/7/", "https://api.test/book/8/"])
        // `@@` forces JSoup even on JSON (Legado checks it before looking at the content): nothing to select.
        #expect(page.results.map(\.kind) == ["", ""])
        // The same kind of rule on an HTML page is a JSoup selector.
        let info = try await engine.bookInfo(url: "https://api.test/book/7/")
        #expect(info.name == "星河旅人")
        #expect(info.author == "青石")
    }
}

@Suite("TOC per-chapter fast path")
struct TOCFastPathTests {
    /// Links and titles that take each branch of the fast path and of the fall-backs to the general path.
    static let page = """
        <html><head><base href="/book/7/"></head><body><ul id="list">
        <li><a href="1.html">第一章　开始　</a></li>
        <li><a href="  /book/7/2.html  ">  第二章\t\n  风起  </a></li>
        <li><a href="https://novel.test/book/7/3.html">&nbsp;第三章&amp;云涌&nbsp;</a></li>
        <li><a href="http://other.test/4.html">第<b>四</b>章</a></li>
        <li><a href="../7/5.html">第五章 &lt;上&gt;</a></li>
        <li><a href="./6.html#top">　第六章　</a></li>
        <li><a href="//cdn.test/7.html">第七章</a></li>
        <li><a href="8.html,{'webView': true}">第八章</a></li>
        <li><a href="
        9.html
        ">第九章</a></li>
        <li><a href="?page=10">第十章</a></li>
        <li><a href="mailto:x@y.test">第十一章</a></li>
        <li><a href="1.html">第一章 重复</a></li>
        <li><a href="">只有标题</a></li>
        <li><a href="12.html"></a></li>
        <li><a href="13.html"><![CDATA[x]]>第&#21313;三章</a></li>
        <li><a href="%E7%AC%AC14.html">第十四章 \u{00A0}</a></li>
        <li><a href="15.html" title=" 2024\u{00A0}\u{00A0}05-01 ">第十五章\u{00A0}\u{00A0}开始</a></li>
        <li><a href="16.html" title="\u{3000}昨天\u{3000}">x\u{200B}y so\u{00AD}ft \u{3000}</a></li>
        <li><a href="17.html">第三章 &lt;甲&gt; &amp; 乙 &amp;amp; 丙</a></li>
        <li><a>无链接</a></li>
        </ul></body></html>
        """

    static let rules: [(list: String, name: String, url: String)] = [
        ("//ul[@id='list']/li", "//a/text()", "//a/@href"),
        ("//ul[@id='list']/li/a", "text()", "@href"),
        ("//ul[@id='list']/li/a", "/text()", "/@href"),
        ("//ul[@id='list']/li", "@XPath:./a", "@XPath:./a/@href"),
        ("//ul[@id='list']/li", "//a", "//@href"),
        ("//ul[@id='list']/li", "//text()", "//a/@href"),
    ]

    @Test("gives exactly what the general (traced) path gives", arguments: 0..<rules.count)
    func sameAsGeneralPath(index: Int) async throws {
        let rule = Self.rules[index]
        let source = try loadSource("""
            {"bookSourceUrl": "https://novel.test", "bookSourceName": "fast path",
             "ruleToc": {"chapterList": "\(rule.list)", "chapterName": "\(rule.name)", "chapterUrl": "\(rule.url)",
                         "updateTime": "@XPath://@title"}}
            """)
        let site = TestSite(html: ["https://novel.test/book/7/list.html": Self.page])
        if rule.name == "text()" {
            // JSoup's "text()" is an attribute no element has: every title is empty, and both paths say so.
            for tracer in [nil, RuleTracer()] as [RuleTracer?] {
                await #expect {
                    try await SourceEngine(source: source, transport: site, tracer: tracer).toc(url: "https://novel.test/book/7/list.html")
                } throws: { error in
                    "\(error)".hasPrefix("ruleToc.chapterName was empty in all 20 element(s)")
                }
            }
            return
        }
        let fast = try await SourceEngine(source: source, transport: site).toc(url: "https://novel.test/book/7/list.html")
        let general = try await SourceEngine(source: source, transport: site, tracer: RuleTracer())
            .toc(url: "https://novel.test/book/7/list.html")
        #expect(fast.chapters == general.chapters)
        #expect(fast.warnings == general.warnings)
        #expect(fast.droppedDuplicates == general.droppedDuplicates)
        #expect(fast.chapters.count >= 12)
    }

    @Test("values come out trimmed, decoded and resolved")
    func values() async throws {
        let source = try loadSource("""
            {"bookSourceUrl": "https://novel.test", "bookSourceName": "fast path",
             "ruleToc": {"chapterList": "//ul[@id='list']/li", "chapterName": "//a/text()", "chapterUrl": "//a/@href"}}
            """)
        let site = TestSite(html: ["https://novel.test/book/7/list.html": Self.page])
        let toc = try await SourceEngine(source: source, transport: site).toc(url: "https://novel.test/book/7/list.html")
        let byTitle = Dictionary(toc.chapters.map { ($0.title, $0.url) }, uniquingKeysWith: { first, _ in first })
        #expect(byTitle["第二章 风起"] == "https://novel.test/book/7/2.html")
        #expect(byTitle["第三章&云涌"] == "https://novel.test/book/7/3.html")
        #expect(byTitle["第五章 <上>"] == "https://novel.test/book/7/5.html")
        // Chapter titles keep IDEOGRAPHIC SPACE at their ends, as Legado does.
        #expect(byTitle["　第六章　"] == "https://novel.test/book/7/6.html#top")
        #expect(byTitle["第七章"] == "https://cdn.test/7.html")
        #expect(byTitle["第八章"] == "https://novel.test/book/7/8.html,{'webView': true}")  // rendered in a browser
        #expect(byTitle["第九章"] == "https://novel.test/book/7/9.html")
        #expect(byTitle["第十章"] == "https://novel.test/book/7/?page=10")
        // jsoup's text(): NO-BREAK SPACE is whitespace, ZERO WIDTH SPACE and SOFT HYPHEN are dropped, U+3000 stays.
        #expect(byTitle["第十五章 开始"] == "https://novel.test/book/7/15.html")
        #expect(byTitle["xy soft \u{3000}"] == "https://novel.test/book/7/16.html")
        // Entities are decoded once: the DOM's text is what a browser shows.
        #expect(byTitle["第三章 <甲> & 乙 &amp; 丙"] == "https://novel.test/book/7/17.html")
        // The first 第一章 is listed again later: the later one is kept (Legado keeps the last occurrence). The
        // two entries without a link both stand for the page itself, so the first of them is dropped too.
        #expect(toc.chapters.first?.title == "第二章 风起")
        #expect(toc.droppedDuplicates == 2)
        #expect(byTitle["第一章 重复"] == "https://novel.test/book/7/1.html")
    }
}

@Suite("Entities are decoded exactly once")
struct EntityDecodingTests {
    static let written = "第三章 &lt;甲&gt; &amp; 乙 &amp;amp; 丙"
    static let shown = "第三章 <甲> & 乙 &amp; 丙"
    static let page = """
        <html><body><ul id="list"><li><a href="3.html">\(written)</a></li></ul>
        <div id="intro">\(written)</div><div id="content"><p>\(written)</p></div></body></html>
        """

    func toc(_ rules: String, body: String = page, type: String = "text/html") async throws -> [String] {
        let source = try loadSource("""
            {"bookSourceUrl": "https://novel.test", "bookSourceName": "entities", "ruleToc": \(rules)}
            """)
        let site = TestSite(["https://novel.test/list": .init(headers: [HTTPHeader("Content-Type", type)], body: Array(body.utf8))])
        let fast = try await SourceEngine(source: source, transport: site).toc(url: "https://novel.test/list")
        let general = try await SourceEngine(source: source, transport: site, tracer: RuleTracer()).toc(url: "https://novel.test/list")
        #expect(fast.chapters == general.chapters)
        return fast.chapters.map(\.title)
    }

    @Test("DOM text, html(), an AllInOne regex over the source and a JSON string all show what a browser shows")
    func titles() async throws {
        #expect(try await toc(#"{"chapterList": "//ul[@id='list']/li", "chapterName": "//a/text()", "chapterUrl": "//a/@href"}"#)
                == [Self.shown])
        #expect(try await toc(#"{"chapterList": "//ul[@id='list']/li", "chapterName": "//a", "chapterUrl": "//a/@href"}"#)
                == [Self.shown])
        #expect(try await toc(#"{"chapterList": "//ul[@id='list']/li", "chapterName": "//a/html()", "chapterUrl": "//a/@href"}"#)
                == [Self.shown])
        #expect(try await toc(#"{"chapterList": "id.list@tag.li", "chapterName": "tag.a@html", "chapterUrl": "tag.a@href"}"#)
                == [Self.shown])
        #expect(try await toc(#"{"chapterList": "id.list@tag.li", "chapterName": "tag.a@text", "chapterUrl": "tag.a@href"}"#)
                == [Self.shown])
        #expect(try await toc(#"{"chapterList": ":<a href=\"([^\"]+)\">([^<]+)</a>", "chapterName": "$2", "chapterUrl": "$1"}"#)
                == [Self.shown])
        // A template mixing DOM text with a literal: the text is not decoded again.
        #expect(try await toc(#"{"chapterList": "//ul[@id='list']/li", "chapterName": "{{//a/text()}}!", "chapterUrl": "//a/@href"}"#)
                == [Self.shown + "!"])
        let json = #"{"list": [{"title": "\#(Self.written)", "url": "/3.html"}]}"#
        #expect(try await toc(#"{"chapterList": "$.list[*]", "chapterName": "$.title", "chapterUrl": "$.url"}"#,
                              body: json, type: "application/json") == [Self.shown])
    }

    @Test("intro and content are decoded once too")
    func introAndContent() async throws {
        let source = try loadSource("""
            {"bookSourceUrl": "https://novel.test", "bookSourceName": "entities",
             "ruleBookInfo": {"name": "//title/text()", "intro": "//div[@id='intro']"},
             "ruleContent": {"content": "//div[@id='content']"}}
            """)
        let site = TestSite(html: ["https://novel.test/b": Self.page])
        let info = try await SourceEngine(source: source, transport: site).bookInfo(url: "https://novel.test/b")
        #expect(info.intro == Self.shown)
        let content = try await SourceEngine(source: source, transport: site)
            .content(of: Chapter(index: 0, title: "", url: "https://novel.test/b"))
        #expect(content.text == Self.shown)
        let htmlSource = try loadSource("""
            {"bookSourceUrl": "https://novel.test", "bookSourceName": "entities",
             "ruleContent": {"content": "//div[@id='content']/html()"}}
            """)
        let markup = try await SourceEngine(source: htmlSource, transport: site)
            .content(of: Chapter(index: 0, title: "", url: "https://novel.test/b"))
        #expect(markup.text == Self.shown)
    }
}

import BookRuleJSON
import BookRuleDocument
import BookRuleRules
import BookRuleHTTP
import BookRuleEngine
import BookRuleLibrary
import BookRuleCheck
import Testing
import TestSupport

@Suite("Explore: exploreUrl's categories and a category's books")
struct ExploreTests {
    /// A category page of the in-memory site: two books in `ul.list`, and the page number in the title.
    static func categoryPage(_ page: Int, books: [(String, String)]) -> String {
        let items = books.map { "<li><a class='name' href='\($0.1)'>\($0.0)</a><span class='author'>作者\(page)</span></li>" }
        return "<html><body><h1>第\(page)页</h1><ul class='list'>\(items.joined())</ul></body></html>"
    }

    static func source(exploreURL: String, ruleExplore: String = "", extra: String = "") -> String {
        """
        {"bookSourceUrl": "https://novel.test", "bookSourceName": "Explore Test",
         "searchUrl": "/search?q={{key}}",
         "exploreUrl": \(exploreURL),
         "ruleSearch": {"bookList": "//div[@class='result']", "name": "//a/text()", "bookUrl": "//a/@href"},
         "ruleExplore": {\(ruleExplore)}\(extra)}
        """
    }

    static let exploreRules = """
    "bookList": "//ul[@class='list']/li", "name": "//a[@class='name']/text()",
    "author": "//span[@class='author']/text()", "bookUrl": "//a[@class='name']/@href"
    """

    @Test("title::url entries separated by && and line breaks; an entry without a URL is a header")
    func textForm() throws {
        let categories = try ExploreCategory.parse("排行::\n玄幻::/sort/1/{{page}}.html&&都市::/sort/2/{{page}}.html\r\n\n武侠::/sort/3/")
        #expect(categories == [
            ExploreCategory(title: "排行", url: nil),
            ExploreCategory(title: "玄幻", url: "/sort/1/{{page}}.html"),
            ExploreCategory(title: "都市", url: "/sort/2/{{page}}.html"),
            ExploreCategory(title: "武侠", url: "/sort/3/"),
        ])
        #expect(categories[0].isHeader && !categories[1].isHeader)
    }

    @Test("a JSON array of {title, url, style}: style is dropped, an object without url is a header")
    func jsonForm() throws {
        let categories = try ExploreCategory.parse("""
        [{"title": "分类", "style": {"layout_flexBasisPercent": 1}},
         {"title": "玄幻", "url": "/sort/1/{{page}}.html", "style": {"layout_flexGrow": 1}},
         null, {"title": "都市", "url": "https://novel.test/sort/2/{{page}}.html"}]
        """)
        #expect(categories.map(\.title) == ["分类", "玄幻", "都市"])
        #expect(categories.map(\.url) == [nil, "/sort/1/{{page}}.html", "https://novel.test/sort/2/{{page}}.html"])
    }

    @Test("a malformed JSON array is a problem of exploreUrl at load, with the reason")
    func malformedJSONIsAProblem() throws {
        let source = try loadSource(Self.source(exploreURL: #""[{\"title\": \"玄幻\", 3]""#))
        let problem = try #require(source.problems.first { $0.field == "exploreUrl" })
        #expect(problem.reason.contains("JSON array"), "\(problem)")
        #expect(source.exploreCategories == nil)
    }

    @Test("a category's books are read with ruleExplore, {{page}} is the page asked for")
    func categoryWithRuleExplore() async throws {
        let source = try loadSource(Self.source(exploreURL: #""玄幻::/sort/1/{{page}}.html""#, ruleExplore: Self.exploreRules))
        #expect(source.problems.isEmpty, "\(source.problems)")
        let site = TestSite(html: [
            "https://novel.test/sort/1/2.html": Self.categoryPage(2, books: [("星河旅人", "/book/7/"), ("长夜灯火", "/book/8/")]),
        ])
        let engine = SourceEngine(source: source, transport: site)
        let categories = try await engine.exploreCategories()
        let category = try ExploreCategory.pick("玄幻", in: categories)
        let page = try await engine.explore(url: try #require(category.url), page: 2)
        #expect(page.results.map(\.name) == ["星河旅人", "长夜灯火"])
        #expect(page.results.map(\.author) == ["作者2", "作者2"])
        #expect(page.results.map(\.bookURL) == ["https://novel.test/book/7/", "https://novel.test/book/8/"])
        #expect(site.requests.map(\.url) == ["https://novel.test/sort/1/2.html"])
    }

    @Test("without a ruleExplore bookList, a category's page is read with ruleSearch, as Legado's BookList does")
    func fallsBackToRuleSearch() async throws {
        let source = try loadSource(Self.source(exploreURL: #""全部::/all/{{page}}""#))
        #expect(source.exploreListSection.name == .ruleSearch)
        let site = TestSite(html: [
            "https://novel.test/all/1": "<div class='result'><a href='/book/9/'>归途</a></div>",
        ])
        let page = try await SourceEngine(source: source, transport: site).explore(url: "/all/{{page}}")
        #expect(page.results.map(\.name) == ["归途"])
        #expect(page.results.map(\.bookURL) == ["https://novel.test/book/9/"])
    }

    @Test("an exploreUrl written as JavaScript gives the categories its result lists, in either form")
    func scriptForm() async throws {
        let text = try loadSource(Self.source(exploreURL: #""@js:['玄幻', '都市'].map((t, i) => t + '::/sort/' + (i + 1) + '/{{page}}').join('\\n')""#))
        #expect(text.problems.isEmpty, "\(text.problems)")
        let fromText = try await SourceEngine(source: text, transport: TestSite(html: [:])).exploreCategories()
        #expect(fromText == [ExploreCategory(title: "玄幻", url: "/sort/1/{{page}}"),
                             ExploreCategory(title: "都市", url: "/sort/2/{{page}}")])

        let json = try loadSource(Self.source(exploreURL: #""<js>JSON.stringify([{title: '榜单'}, {title: '完本', url: '/full/{{page}}'}])</js>""#))
        let fromJSON = try await SourceEngine(source: json, transport: TestSite(html: [:])).exploreCategories()
        #expect(fromJSON == [ExploreCategory(title: "榜单", url: nil), ExploreCategory(title: "完本", url: "/full/{{page}}")])
    }

    @Test("a script whose result is in neither form fails naming exploreUrl and what it gave")
    func scriptWithAnUnreadableResult() async throws {
        let source = try loadSource(Self.source(exploreURL: #""@js:'[1, 2'""#))
        await #expect {
            try await SourceEngine(source: source, transport: TestSite(html: [:])).exploreCategories()
        } throws: { error in
            "\(error)".contains("exploreUrl") && "\(error)".contains("JSON array")
        }
    }

    @Test("a category is picked by title or URL; a URL of the site works without a category; an unknown name lists the known")
    func pickingACategory() throws {
        let categories = [ExploreCategory(title: "排行", url: nil), ExploreCategory(title: "玄幻", url: "/sort/1/")]
        #expect(try ExploreCategory.pick("玄幻", in: categories).url == "/sort/1/")
        #expect(try ExploreCategory.pick("/sort/1/", in: categories).title == "玄幻")
        #expect(try ExploreCategory.pick("https://novel.test/top/", in: []).url == "https://novel.test/top/")
        #expect(throws: ExploreError.unknownCategory("武侠", known: ["玄幻"])) {
            try ExploreCategory.pick("武侠", in: categories)
        }
        #expect(throws: ExploreError.self) { try ExploreCategory.pick("排行", in: categories) }
    }

    @Test("a source without exploreUrl has no categories: the step names the missing field")
    func noExploreURL() async throws {
        let source = try loadSource("""
        {"bookSourceUrl": "https://novel.test", "searchUrl": "/s?q={{key}}",
         "ruleSearch": {"bookList": "//li", "name": "//a/text()"}}
        """)
        await #expect {
            try await SourceEngine(source: source, transport: TestSite(html: [:])).exploreCategories()
        } throws: { error in
            "\(error)".contains("exploreUrl")
        }
    }

    @Test("a broken ruleExplore.bookList stops explore (not search); a broken searchUrl does not stop explore")
    func problemsThatStopExplore() throws {
        let broken = try loadSource(Self.source(exploreURL: #""a::/a""#, ruleExplore: #""bookList": "//li[", "name": "//a/text()""#))
        #expect(broken.problems(stopping: .explore).contains { $0.field == "ruleExplore.bookList" })
        #expect(!broken.problems(stopping: .search).contains { $0.field == "ruleExplore.bookList" })
        let badSearch = try loadSource(Self.source(exploreURL: #""a::/a""#, ruleExplore: Self.exploreRules,
                                                   extra: #", "searchUrl": "@js:((""#)
            .replacingOccurrences(of: #""searchUrl": "/search?q={{key}}","#, with: ""))
        #expect(badSearch.problems.contains { $0.field == "searchUrl" }, "\(badSearch.problems)")
        #expect(badSearch.problems(stopping: .explore).isEmpty, "\(badSearch.problems(stopping: .explore))")
    }
}

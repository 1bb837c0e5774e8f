import BookRuleJSON
import BookRuleEngine
import BookRuleLibrary
import Foundation
import Testing
import TestSupport

@Suite("RSS sources: the model as Legado reads it, mixed files, sortUrl")
struct RssSourceTests {
    static let full = """
    {"sourceUrl": "https://news.example/", "sourceName": "新闻", "sourceIcon": "https://news.example/i.png",
     "sourceGroup": "资讯", "sourceComment": "说明", "enabled": false, "variableComment": "变量",
     "jsLib": "function f(x) { return x; }", "enabledCookieJar": "false", "concurrentRate": "1000",
     "header": "{'Referer': 'https://news.example/'}", "loginUrl": "https://news.example/login",
     "loginUi": "", "loginCheckJs": "", "coverDecodeJs": "result", "sortUrl": "要闻::/a.xml",
     "singleUrl": "true", "articleStyle": "2", "ruleArticles": "-//li", "ruleNextPage": "page",
     "ruleTitle": "a/text()", "rulePubDate": "span/text()", "ruleDescription": "p/text()", "ruleImage": "img/@src",
     "ruleLink": "a/@href", "ruleContent": "//div[@id='c']", "contentWhitelist": "https://news.example/",
     "contentBlacklist": "https://ads.example/", "shouldOverrideUrlLoading": "false", "style": "p{}",
     "enableJs": false, "loadWithBaseUrl": false, "injectJs": "1", "lastUpdateTime": 1733500000000,
     "customOrder": 7, "somethingNew": 1}
    """

    @Test("every field is read, with Gson's coercions (booleans and numbers written as strings)")
    func everyField() throws {
        let source = try #require(try RssSource.load(bytesOf: Self.full).first)
        #expect(source.url == "https://news.example/" && source.name == "新闻" && source.icon == "https://news.example/i.png")
        #expect(source.group == "资讯" && source.comment == "说明" && source.enabled == false && source.variableComment == "变量")
        #expect(source.jsLib == "function f(x) { return x; }" && source.enabledCookieJar == false && source.concurrentRate == "1000")
        #expect(source.header == "{'Referer': 'https://news.example/'}" && source.loginURL == "https://news.example/login")
        #expect(source.coverDecodeJs == "result" && source.sortURL == "要闻::/a.xml" && source.singleURL && source.articleStyle == 2)
        #expect(source.rules.texts[.ruleArticles] == "-//li" && source.rules[.ruleArticles]?.reversed == true)
        #expect(source.rules.nextPageByNumber, "ruleNextPage PAGE is matched without regard to case")
        #expect(source.rules.texts.count == 8 && source.rules.compiled.count == 7)
        #expect(source.contentWhitelist == "https://news.example/" && source.contentBlacklist == "https://ads.example/")
        #expect(source.shouldOverrideUrlLoading == "false" && source.style == "p{}" && !source.enableJs && !source.loadWithBaseUrl)
        #expect(source.injectJs == "1" && source.lastUpdateTime == 1_733_500_000_000 && source.customOrder == 7)
        #expect(source.problems.isEmpty, "\(source.problems)")
        #expect(source.json["somethingNew"] != nil, "unknown keys are kept")
        // The fetching half is what the engine reads: the same header, cookie jar and login as a book source.
        #expect(source.engineSource.url == "https://news.example/" && source.engineSource.name == "新闻")
        #expect(source.engineSource.headers.map(\.name) == ["Referer"] && !source.engineSource.enabledCookieJar)
        #expect(source.engineSource.login.canLogIn && source.engineSource.concurrentRate == "1000")
        #expect(source.hasScripts, "a jsLib needs the script runtime")
    }

    @Test("an almost empty source takes Legado's defaults and reads a feed")
    func defaults() throws {
        let source = try #require(try RssSource.load(bytesOf: #"{"sourceUrl": "https://feed.example/rss", "sourceName": "F"}"#).first)
        #expect(source.enabled && source.enabledCookieJar && source.enableJs && source.loadWithBaseUrl)
        #expect(!source.singleURL && source.articleStyle == 0 && source.lastUpdateTime == 0 && source.customOrder == 0)
        #expect(source.group == nil && source.sortURL == nil && source.icon == "")
        #expect(source.rules.readsFeed && source.rules.compiled.isEmpty && !source.hasScripts)
        #expect(RssSort.parse(source.sortURL, sourceURL: source.url) == [RssSort(name: "", url: "https://feed.example/rss")])
    }

    @Test("a broken rule or a value of the wrong type is a problem naming its path; the source still loads")
    func problems() throws {
        let json = """
        [{"sourceUrl": "https://a.example/", "sourceName": "A"},
         {"sourceUrl": "https://b.example/", "sourceName": "B", "ruleArticles": "//li[", "ruleTitle": ["x"],
          "enabled": {}, "sortUrl": "@js:return (", "ruleLink": "@js:("}]
        """
        let sources = try RssSource.load(bytesOf: json)
        #expect(sources.count == 2 && sources[0].problems.isEmpty)
        let fields = sources[1].problems.map(\.field)
        #expect(fields.contains("[1].ruleArticles") && fields.contains("[1].ruleTitle") && fields.contains("[1].enabled"))
        #expect(fields.contains("[1].sortUrl") && fields.contains("[1].ruleLink"))
        #expect(sources[1].problems.first { $0.field == "[1].ruleTitle" }?.reason == "expected a rule string, found array")
        #expect(sources[1].problems.allSatisfy { $0.location != nil })
    }

    @Test("a collection mixing both kinds: book sources load as before, RSS sources apart; one kind alone is refused by the other")
    func mixedFiles() throws {
        let mixed = """
        [{"bookSourceUrl": "https://book.example/", "bookSourceName": "书", "ruleSearch": {"bookList": "//li"}},
         {"sourceUrl": "https://news.example/", "sourceName": "新闻"},
         {"bookSourceUrl": "https://book2.example/", "bookSourceName": "书二"},
         {"sourceUrl": "https://blog.example/", "sourceName": "博客", "ruleArticles": "//article"}]
        """
        let file = try SourceFile.load(bytes: Array(mixed.utf8), path: "mixed.json")
        #expect(file.bookSources.map(\.name) == ["书", "书二"] && file.rssSources.map(\.name) == ["新闻", "博客"])
        #expect(file.bookSources.map(\.origin.index) == [0, 2] && file.rssSources.map(\.origin.index) == [1, 3])
        let books = try BookSource.load(bytes: Array(mixed.utf8), path: "mixed.json")
        #expect(books.map(\.url) == ["https://book.example/", "https://book2.example/"])
        #expect(books.allSatisfy { $0.problems.isEmpty })

        let onlyRss = #"[{"sourceUrl": "https://news.example/", "sourceName": "新闻"}]"#
        #expect(throws: SourceFileError.onlyRssSources(path: "rss.json", count: 1)) {
            try BookSource.load(bytes: Array(onlyRss.utf8), path: "rss.json")
        }
        #expect(SourceFileError.onlyRssSources(path: "rss.json", count: 1).description.contains("bookrule rss --source rss.json"))
        let onlyBooks = #"{"bookSourceUrl": "https://book.example/", "bookSourceName": "书"}"#
        #expect(throws: SourceFileError.noRssSources(path: "b.json", bookSources: 1)) {
            try RssSource.load(bytesOf: onlyBooks, path: "b.json")
        }
    }

    @Test("a folder of sources for many-source commands and serve: book sources searched, RSS sources kept apart, an RSS-only file no problem")
    func collections() throws {
        let directory = try ScratchDirectory("rss-collection")
        try #"[{"bookSourceUrl": "https://book.example/", "bookSourceName": "书"}, {"sourceUrl": "https://news.example/", "sourceName": "新闻"}]"#
            .write(toFile: directory.path + "/a.json", atomically: true, encoding: .utf8)
        try #"{"sourceUrl": "https://blog.example/", "sourceName": "博客"}"#.write(toFile: directory.path + "/b.json", atomically: true, encoding: .utf8)
        let collection = SourceCollection(paths: [directory.path])
        #expect(collection.sources.map(\.url) == ["https://book.example/"])
        #expect(collection.rssSources.map(\.url) == ["https://news.example/", "https://blog.example/"])
        #expect(collection.problems.isEmpty, "\(collection.problems)")
    }

    @Test("sortUrl: name::url entries split on && and line breaks, at the first ::, resolved unless {{…}}; entries without a URL skipped")
    func sortParsing() {
        let text = "要闻::/news/{{page}}.html&&体育::https://other.example/s?a=b::c\n\n只有名字\n空::\r\n模板::{{java.base}}/x&&&&国际::intl.xml"
        #expect(RssSort.parse(text, sourceURL: "https://news.example/home/") == [
            RssSort(name: "要闻", url: "https://news.example/news/{{page}}.html"),
            RssSort(name: "体育", url: "https://other.example/s?a=b::c"),
            RssSort(name: "模板", url: "{{java.base}}/x"),
            RssSort(name: "国际", url: "https://news.example/home/intl.xml"),
        ])
        #expect(RssSort.parse("只有名字&&空::", sourceURL: "https://n.example/") == [RssSort(name: "", url: "https://n.example/")])
        #expect(RssSort.scriptCode("@js:result") == "result" && RssSort.scriptCode("<js>a<b</js>") == "a<b")
        #expect(RssSort.scriptCode("a::b") == nil)
    }
}

extension RssSource {
    /// The RSS sources of JSON text.
    static func load(bytesOf json: String, path: String = "rss.json") throws -> [RssSource] {
        let file = try SourceFile.load(bytes: Array(json.utf8), path: path)
        guard !file.rssSources.isEmpty else { throw SourceFileError.noRssSources(path: path, bookSources: file.bookSources.count) }
        return file.rssSources
    }
}

import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleDocument
@testable import BookRuleEngine
@testable import BookRuleHTTP
@testable import BookRuleLibrary
@testable import BookRuleRules
import TestSupport

/// Real saved pages of novel sites (the shared corpus outside the repo: `<repo>/../shared/corpus`, see its
/// `pages/README.md` and `pages/MANIFEST.json`) read through `SourceEngine`, with a community Legado source
/// where one fits the page and otherwise a source of ours (`Sources-json/real/`). The engine fetches from an
/// in-memory site serving the saved bytes at their original URLs, so paging (nextTocUrl, nextContentUrl),
/// de-duplication, URL resolution, charset decisions, text formatting and replaceRegex all run as they would
/// live. docs/compatibility.md ("Real pages") lists every page with the result.
enum Corpus {
    /// `<repo>/../shared/corpus`, found from this file (Tests/BookRuleTests/ConformanceTests.swift).
    static let root: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("../shared/corpus").standardized.path

    /// `<repo>/Sources-json/real`: the sources we wrote for sites without a fitting community source.
    static let ourSources: String = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Sources-json/real").standardized.path

    static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: root + "/pages/MANIFEST.json")
    }

    struct Manifest: Decodable, Sendable {
        struct Page: Decodable, Sendable {
            var local_path: String
            var kind: String
            var site_domain: String
            var charset_meta: String?
            var charset_bytes: String?
            var legado_sources: [SourceRef]
        }
        struct SourceRef: Decodable, Sendable {
            var bookSourceName: String
            var bookSourceUrl: String
            var `in`: String
        }
        var pages: [Page]
    }

    private static let manifestCache = Locked<Manifest?>(nil)

    static func manifest() throws -> Manifest {
        if let manifest = manifestCache.withLock({ $0 }) { return manifest }
        let data = try Data(contentsOf: URL(fileURLWithPath: root + "/pages/MANIFEST.json"))
        let manifest = try JSONDecoder().decode(Manifest.self, from: data)
        manifestCache.withLock { $0 = manifest }
        return manifest
    }

    /// Community collections read so far: each source's JSON by bookSourceName and bookSourceUrl, so a
    /// collection (up to 3.5 MB) is parsed once per run.
    private static let collections = Locked<[String: [String: [Data]]]>([:])

    static func sourceJSON(in file: String, name: String, url: String) throws -> [Data] {
        let key = name + "\u{0}" + url
        if let loaded = collections.withLock({ $0[file] }) { return loaded[key] ?? [] }
        let objects = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: file)))
                                   as? [[String: Any]], "\(file) is not an array")
        var byKey: [String: [Data]] = [:]
        for object in objects {
            guard let name = object["bookSourceName"] as? String, let url = object["bookSourceUrl"] as? String else { continue }
            byKey[name + "\u{0}" + url, default: []].append(try JSONSerialization.data(withJSONObject: object))
        }
        collections.withLock { $0[file] = byKey }
        return byKey[key] ?? []
    }

    static func manifestPage(_ localPath: String) throws -> Manifest.Page {
        try #require(try manifest().pages.first { $0.local_path == localPath }, "\(localPath) is not in the manifest")
    }

    static func bytes(_ localPath: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: URL(fileURLWithPath: root + "/pages/" + localPath)))
    }

    /// The source a case names: a community source the manifest lists for the page (loaded from its
    /// collection, picked by bookSourceName and bookSourceUrl), or one of ours.
    static func source(_ choice: SourceChoice, for page: Manifest.Page,
                       dropping field: String? = nil) throws -> BookSource {
        switch choice {
        case .community(let name, let collection):
            let ref = try #require(page.legado_sources.first { ref in
                ref.bookSourceName == name && (collection.map { ref.in.hasSuffix($0) } ?? true)
            }, "the manifest lists no source \(name) for \(page.local_path)")
            let file = root + "/" + ref.in.replacingOccurrences(of: "corpus/", with: "")
            // Only the source in question is compiled, not the whole collection (up to 3.5 MB of sources).
            let picked = try sourceJSON(in: file, name: ref.bookSourceName, url: ref.bookSourceUrl)
            #expect(picked.count == 1, "\(name) should be unique in \(ref.in)")
            let matches = try BookSource.load(bytes: [UInt8](try #require(picked.first)), path: file)
            #expect(field == nil, "community sources are used as they are")
            return try #require(matches.first)
        case .ours(let file):
            let path = ourSources + "/" + file
            var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            if let field {
                // A rule removed for one check (a next-page rule leading to a page that was not saved).
                var object = try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? [String: Any])
                let parts = field.split(separator: ".").map(String.init)
                var section = try #require(object[parts[0]] as? [String: Any])
                #expect(section.removeValue(forKey: parts[1]) != nil, "\(file) has no \(field)")
                object[parts[0]] = section
                bytes = [UInt8](try JSONSerialization.data(withJSONObject: object))
            }
            let sources = try BookSource.load(bytes: bytes, path: path)
            #expect(sources.count == 1)
            let source = try #require(sources.first)
            #expect(source.problems.isEmpty, "\(file): \(source.problems)")
            return source
        }
    }

    static func expectedPath(_ relative: String) -> String { root + "/pages/" + relative }

    /// Lines trimmed (ASCII and full-width spaces, NBSP) with empty lines dropped.
    static func normalised(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline)
            .map { $0.trimmingCharacters(in: .whitespacesAndNewlines.union(CharacterSet(charactersIn: "\u{3000}\u{00A0}"))) }
            .filter { !$0.isEmpty }
            .joined(separator: "\n")
    }

    /// What the engine must decide for a page, from the manifest: GBK bytes are decoded as GB18030 (its
    /// superset) because the page says so; UTF-8 bytes as UTF-8, and when the page says gbk anyway (re-saved
    /// pages) the decision says it overruled the page.
    static func checkCharset(_ page: Manifest.Page, bytes: [UInt8], url: String) throws {
        let decision = try CharsetDetector.decide(bytes: bytes, sourceOption: nil, contentType: SavedSite.contentType)
        switch page.charset_bytes {
        case "gbk/gb18030":
            #expect(decision.charset == "GB18030", "\(page.local_path): \(decision)")
            #expect(decision.reason == .meta)
            #expect(decision.note == nil)
        case "utf-8":
            #expect(decision.charset == "UTF-8", "\(page.local_path): \(decision)")
            if let meta = page.charset_meta, meta != "utf-8" {
                #expect(decision.reason == .validUTF8)
                #expect(decision.declared == meta)
                #expect(decision.note == "<meta> tag says \(meta) but the bytes are valid UTF-8", "\(decision)")
            } else {
                #expect(decision.note == nil)
            }
        default:
            Issue.record("\(page.local_path): unexpected charset_bytes \(page.charset_bytes ?? "nil")")
        }
        // What the engine reports for the page it fetched.
        let document = try HTMLDocument(bytes: bytes, url: url, contentType: SavedSite.contentType)
        #expect(document.charset == decision)
    }

    /// Lines of text that are not reading text: leftover markup, entities, script, mis-decoded bytes.
    static func checkClean(_ text: String, _ label: String) {
        #expect(text.range(of: #"<[A-Za-z/!][^>]*>"#, options: .regularExpression) == nil, "\(label): a tag is left")
        #expect(text.range(of: #"&(#[0-9]+|#x[0-9A-Fa-f]+|[A-Za-z]+);"#, options: .regularExpression) == nil,
                "\(label): an entity is left")
        #expect(!text.contains("\u{FFFD}"), "\(label): mis-decoded bytes")
        for script in ["document.write", "function(", "window.", "adsbygoogle", "googletag"] {
            #expect(!text.contains(script), "\(label): script text \(script)")
        }
    }
}

extension Corpus {
    /// `body` with its async work off the cooperative pool (see `DedicatedThreadExecutor`).
    static func offCooperativePool(_ body: () async throws -> Void) async throws {
        try await TestSupport.offCooperativePool(body)
    }
}

/// Which source a case runs.
enum SourceChoice: Sendable, CustomStringConvertible {
    /// A community source the manifest lists for the page, by bookSourceName (and collection file, where
    /// two collections hold a source of that name).
    case community(String, in: String? = nil)
    /// One of ours, by file name in Sources-json/real.
    case ours(String)

    var description: String {
        switch self {
        case .community(let name, let collection): "\(name) (community\(collection.map { ", " + $0 } ?? ""))"
        case .ours(let file): "Sources-json/real/\(file)"
        }
    }
}

/// A saved page and the URL it was saved from (not in the manifest: taken from the page's canonical, og:url
/// or mobile-agent links, or the saving project's expected URLs).
struct SavedPage: Sendable {
    var url: String
    var path: String
    init(_ url: String, _ path: String) {
        self.url = url
        self.path = path
    }
}

/// An in-memory site answering the saved pages at their URLs (as `text/html`, no charset: the page's own
/// `<meta>` or bytes decide) and 404 for anything else.
struct SavedSite: HTTPTransport {
    static let contentType = "text/html"
    let pages: [String: [UInt8]]

    init(_ saved: [SavedPage]) throws {
        var pages: [String: [UInt8]] = [:]
        for page in saved { pages[page.url] = try Corpus.bytes(page.path) }
        self.pages = pages
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        guard let body = pages[request.url] else {
            return HTTPResponse(url: request.url, status: 404, body: Array("not saved".utf8))
        }
        return HTTPResponse(url: request.url, status: 200, headers: [HTTPHeader("Content-Type", Self.contentType)],
                            body: body)
    }
}

struct TocCase: Sendable, CustomTestStringConvertible {
    var site: String
    var source: SourceChoice
    /// The TOC pages, the first one where reading starts.
    var pages: [SavedPage]
    /// Where the source's nextTocUrl leads that was not saved: the engine must ask for it (and fail on the
    /// 404); the saved page's chapters are then checked without the next-page rule.
    var unsavedNext: String?
    /// The saving project's chapters.json (relative to pages/), when it has one.
    var expected: String?
    /// Set when the expected list holds only the first chapters of the TOC; says why.
    var expectedPrefix: String?
    var count: Int
    var duplicates: Int = 0
    var vip: Int = 0
    var first: (title: String, url: String)
    var last: (title: String, url: String)
    var why: String = ""
    var testDescription: String { "\(site) TOC with \(source)" }

    static let bosslsk = "bosslsk_hmqf_crawler_hy/tests/parser/data/"
    static let bosslskExpected = "bosslsk_hmqf_crawler_hy/expected/tests/parser/data/"
    static let tsukuyomi = "rozx_Tsukuyomi/src/__tests__/examplePages/"

    static let all: [TocCase] = [
        TocCase(site: "www.biquge5200.com", source: .community("笔趣阁㉘"),
                pages: [SavedPage("http://www.biquge5200.com/86_86306/", bosslsk + "biquge/book_detail.html")],
                expected: bosslskExpected + "biquge/chapters.json", count: 36, duplicates: 9,
                first: ("第一章 惊不惊喜，意不意外！", "http://www.biquge5200.com/86_86306/151188004.html"),
                last: ("第三十六章 乌龙", "http://www.biquge5200.com/86_86306/151212529.html"),
                why: "#list holds the 9 latest chapters (最新章节) before the full list (正文): 45 links, 36 URLs"),
        TocCase(site: "www.hongxiu.com", source: .community("💵 红袖添香"),
                pages: [SavedPage("https://www.hongxiu.com/book/6972481904230701", bosslsk + "hongxiu/book_detail.html")],
                expected: bosslskExpected + "hongxiu/chapters.json",
                expectedPrefix: "expected chapters.json holds only the first volume (正文, 82 chapters); the source lists all three volumes",
                count: 949, vip: 867,
                first: ("第001章：林寒星", "https://www.hongxiu.com/chapter/6972481904230701/18716614465026564"),
                last: ("第949章：惊艳", "https://www.hongxiu.com/chapter/6972481904230701/25511916289577520")),
        TocCase(site: "www.novelhall.com", source: .community("💤 NovelHall"),
                pages: [SavedPage("https://www.novelhall.com/the-vampire-her-witch-36934/", "dteviot_WebToEpub/scratch/novelhall2.html")],
                count: 1654,
                first: ("Chapter 1 - 1: A Shallow Grave", "https://www.novelhall.com/the-vampire-her-witch-36934/16300914.html"),
                last: ("Chapter 1654: Champions vs Soldiers (Part One)", "https://www.novelhall.com/the-vampire-her-witch-36934/19681148.html")),
        TocCase(site: "freewebnovel.com", source: .community("FreeWebNovel"),
                pages: [SavedPage("https://freewebnovel.com/novel/mom-is-a-slut-my-younger-sibling-is-a-bully-and-dad-is-a-thug",
                                  "dteviot_WebToEpub/test_index.html")],
                count: 103,
                first: ("Chapter 1 Mom is a Camgirl, Dad is a Thug",
                        "https://freewebnovel.com/novel/mom-is-a-slut-my-younger-sibling-is-a-bully-and-dad-is-a-thug/chapter-1"),
                last: ("Chapter 103: Breaking the Sex Slave (18+)",
                       "https://freewebnovel.com/novel/mom-is-a-slut-my-younger-sibling-is-a-bully-and-dad-is-a-thug/chapter-103")),
        TocCase(site: "www.biquge.com.tw", source: .ours("biquge-com-tw.json"),
                pages: [SavedPage("http://www.biquge.com.tw/17_17275/", "0987363_book-downloader/biquge.html")],
                count: 821,
                first: ("第一章 穿越（新书求支持，求推荐！求收藏！）", "http://www.biquge.com.tw/17_17275/7633255.html"),
                last: ("第八百二十章 波及", "http://www.biquge.com.tw/17_17275/8408064.html")),
        TocCase(site: "www.akknovel.com", source: .ours("akknovel.json"),
                pages: [SavedPage("https://www.akknovel.com/series/after-rebirth-i-was-forced-to-become-the-mafia-princess",
                                  "7Solar7_ARC-Web-Scraper/tests/fixtures/series_page.html")],
                count: 704,
                first: ("1. Just Reborn, Mistaken for the Young Lady",
                        "https://www.akknovel.com/series/after-rebirth-i-was-forced-to-become-the-mafia-princess/chapter-1-1-just-reborn-mistaken-for-the-young-lady"),
                last: ("704, Dust Settles [Thanks to Ailuo who loves eating Nyonya dried meat for the generous \"Big Health\" gift]",
                       "https://www.akknovel.com/series/after-rebirth-i-was-forced-to-become-the-mafia-princess/chapter-704-704-dust-settles-thanks-to-ailuo-who-loves-eating-nyonya-dried-meat-for-the-generous-big-health-gift")),
        TocCase(site: "www.lieshu.cc", source: .ours("lieshu.json"),
                pages: [SavedPage("http://www.lieshu.cc/2/2732/", bosslsk + "lieshu/book_detail.html")],
                expected: bosslskExpected + "lieshu/chapters.json", count: 1845,
                first: ("第1章 楔子", "http://www.lieshu.cc/2/2732/2859321.html"),
                last: ("第1272章 五年之执约，执法队", "http://www.lieshu.cc/2/2732/21977462.html")),
        TocCase(site: "www.shangshu.cc", source: .ours("shangshu.json"),
                pages: [SavedPage("http://www.shangshu.cc/99/99390/", bosslsk + "shangshu/book_detail.html")],
                expected: bosslskExpected + "shangshu/chapters.json", count: 327,
                first: ("第1章 开局一条狗一把刀", "http://www.shangshu.cc/99/99390/41128036.html"),
                last: ("第 324章 重力训练室", "http://www.shangshu.cc/99/99390/43449752.html")),
        TocCase(site: "www.xxsy.net", source: .ours("xxsy.json"),
                // The catalog was saved without its URL (no <title>, no canonical); its links are root-relative.
                pages: [SavedPage("http://www.xxsy.net/info/897569.html", bosslsk + "xxsy/chapters.html")],
                expected: bosslskExpected + "xxsy/chapters.json",
                expectedPrefix: "expected chapters.json holds the 65 free chapters of volume 1; the catalog also lists its VIP chapters and a notices volume",
                count: 949, vip: 883,
                first: ("01命定相遇", "http://www.xxsy.net/chapter/7809534.html"),
                last: ("上架活动公告，必戳必戳！！！！！", "http://www.xxsy.net/chapter/8055584.html")),
        TocCase(site: "book.qidian.com", source: .ours("qidian.json"),
                pages: [SavedPage("https://book.qidian.com/info/1010696129", bosslsk + "qidian/chapters.html")],
                expected: bosslskExpected + "qidian/chapters.json", count: 126,
                first: ("第1章 我不想，我不想，不想长大！", "https://read.qidian.com/chapter/22eRNbqHujMKgXB091LLaA2/84-fqqRQy5maGfXRMrUjdw2"),
                last: ("第126章 东方蔷薇的野心", "https://read.qidian.com/chapter/22eRNbqHujMKgXB091LLaA2/mnhD8MRfCQj6ItTi_ILQ7A2")),
        TocCase(site: "unknown 52mb wap template (rehosted)", source: .ours("52mb-wap.json"),
                pages: [SavedPage("http://52mb-template.invalid/book/mulu.html", "kangyanbin_xs/mulu.html")],
                count: 3325,
                first: ("第1章", "http://52mb-template.invalid/book/1047591.html"),
                last: ("第1678章 拖出去杀了！", "http://52mb-template.invalid/book/2349923.html"),
                why: "the 5 latest chapters previewed above ul#chapterList are not selected"),
        TocCase(site: "kakuyomu.jp", source: .ours("kakuyomu.json"),
                pages: [SavedPage("https://kakuyomu.jp/works/822139839100185440", tsukuyomi + "kakuyumu-822139839100185440.html")],
                count: 14,
                first: ("第1話\u{3000}どう見ても貞操観念が逆転している", "https://kakuyomu.jp/works/822139839100185440/episodes/822139839100503950"),
                last: ("第14話\u{3000}姉の貞操観念が一番おかしい", "https://kakuyomu.jp/works/822139839100185440/episodes/822139839111214211")),
        TocCase(site: "ncode.syosetu.com", source: .ours("syosetu-ncode.json"),
                pages: [SavedPage("https://ncode.syosetu.com/n2032iz/", tsukuyomi + "ncode-n2032iz-p1.html")]
                    + (2...5).map { SavedPage("https://ncode.syosetu.com/n2032iz/?p=\($0)", tsukuyomi + "ncode-n2032iz-p\($0).html") },
                count: 499,
                first: ("１話\u{3000}女の子として勘違いされたらしい、ユニコーンとの出会い", "https://ncode.syosetu.com/n2032iz/1/"),
                last: ("４９６話\u{3000}【悲報・混沌】", "https://ncode.syosetu.com/n2032iz/499/"),
                why: "5 index pages of 100 episodes (the last 99) followed through a.c-pager__item--next"),
        TocCase(site: "syosetu.org", source: .ours("syosetu-org.json"),
                pages: [SavedPage("https://syosetu.org/novel/375522/", tsukuyomi + "syosetu-org-375522.html")],
                count: 23,
                first: ("転生", "https://syosetu.org/novel/375522/1.html"),
                last: ("本当のこと", "https://syosetu.org/novel/375522/23.html")),
        TocCase(site: "novelbin.me", source: .ours("novelbin-me.json"),
                pages: [SavedPage("https://novelbin.me/ajax/chapter-archive?novelId=i-accumulate-spirit-roots-for-my-next-life",
                                  "dteviot_WebToEpub/scratch/novelbin_ajax.html")],
                count: 409,
                first: ("Chapter 1: Inverted Mountain", "https://novelbin.me/novel-book/i-accumulate-spirit-roots-for-my-next-life/chapter-1-inverted-mountain"),
                last: ("Chapter 409 - 258: Nine Cicadas Become One", "https://novelbin.me/novel-book/i-accumulate-spirit-roots-for-my-next-life/chapter-409-258-nine-cicadas-become-one")),
        TocCase(site: "novgo.net", source: .ours("novgo.json"),
                pages: [SavedPage("https://novgo.net/i-accumulate-spirit-roots-for-my-next-life.html", "dteviot_WebToEpub/scratch/novgo_novel.html")],
                unsavedNext: "https://novgo.net/i-accumulate-spirit-roots-for-my-next-life.html?page=2",
                count: 50,
                first: ("Chapter 1: Inverted Mountain", "https://novgo.net/i-accumulate-spirit-roots-for-my-next-life/chapter-1-inverted-mountain.html"),
                last: ("Chapter 50: Settling Karma", "https://novgo.net/i-accumulate-spirit-roots-for-my-next-life/chapter-50-settling-karma.html"),
                why: "page 1 of 9 was saved; the latest-chapters ul.list-chapter outside #list-chapter is not selected"),
        TocCase(site: "www.biqukan.com", source: .ours("biqukan.json"),
                pages: [SavedPage("https://www.biqukan.com/3_3037/", "guozengjie_Scrapy/biqukan.html")],
                count: 1673, duplicates: 12,
                first: ("第一章 陨落的天才", "https://www.biqukan.com/3_3037/1349252.html"),
                last: ("《：斗帝之路》手游·角色传记（下）", "https://www.biqukan.com/3_3037/22745259.html"),
                why: "the 12 latest chapters (newest first) above 正文卷 drop out: Legado keeps a URL's last occurrence"),
        TocCase(site: "www.shuquge.com", source: .ours("shuquge.json"),
                pages: [SavedPage("http://www.shuquge.com/txt/30668/index.html", "iamlong_httputilities/test/book.html")],
                count: 1866, duplicates: 12,
                first: ("本书第一个书友群。", "http://www.shuquge.com/txt/30668/4791746.html"),
                last: ("第1817章 只是两朵相似的花", "http://www.shuquge.com/txt/30668/16799963.html"),
                why: "1878 links, the 12 latest chapters repeated above the volumes; the saving project expects 1866 chapters (test/testhtmlparser.js)"),
        TocCase(site: "www.17k.com", source: .ours("17k.json"),
                pages: [SavedPage("https://www.17k.com/list/117302.html", "zgia_save17k/17k.html")],
                count: 1294,
                first: ("新书《罪恶之城》发布公告", "https://www.17k.com/chapter/117302/4085641.html"),
                last: ("章一一九 神构装师", "https://www.17k.com/chapter/117302/15015895.html")),
    ]
}

struct ContentCase: Sendable, CustomTestStringConvertible {
    var site: String
    var source: SourceChoice
    /// The chapter's pages, the first one where reading starts.
    var pages: [SavedPage]
    /// The next chapter's URL, where content paging must stop.
    var next: String?
    /// The saving project's text for this chapter (relative to pages/), when it has one.
    var expected: String?
    /// Regexes for what the expected text holds that ours leaves out (ad lines our replaceRegex removes).
    var expectedExtra: [String] = []
    var why: String = ""
    var paragraphs: Int
    var starts: String
    var ends: String
    /// Ad or boilerplate text that must not survive.
    var absent: [String] = []
    /// What ruleContent.title gives, for sources that have one.
    var title: String?
    var testDescription: String { "\(site) content with \(source)" }

    static let bosslsk = TocCase.bosslsk
    static let bosslskExpected = TocCase.bosslskExpected
    static let tsukuyomi = TocCase.tsukuyomi
    static let akknovel = "https://www.akknovel.com/series/after-rebirth-i-was-forced-to-become-the-mafia-princess/"

    static let all: [ContentCase] = [
        ContentCase(site: "www.biquge5200.com", source: .community("笔趣阁㉘"),
                    pages: [SavedPage("http://www.biquge5200.com/86_86306/151188004.html", bosslsk + "biquge/chapter_content.html")],
                    expected: bosslskExpected + "biquge/chapter_content.txt",
                    paragraphs: 102, starts: "啪啪啪！", ends: "“儿子，惊不惊喜，意不意外！”"),
        ContentCase(site: "www.hongxiu.com", source: .community("💵 红袖添香"),
                    pages: [SavedPage("https://www.hongxiu.com/chapter/6972481904230701/18716614465026564", bosslsk + "hongxiu/chapter_content.html")],
                    expected: bosslskExpected + "hongxiu/chapter_content.txt",
                    paragraphs: 53, starts: "景洪·澜沧江流域", ends: "几乎是在同时，楼梯口出现了个疯狂男人的背影……"),
        ContentCase(site: "read.qidian.com", source: .community("起点中文", in: "XIU2__Yuedu.json"),
                    pages: [SavedPage("https://read.qidian.com/chapter/22eRNbqHujMKgXB091LLaA2/84-fqqRQy5maGfXRMrUjdw2", bosslsk + "qidian/chapter_page.html")],
                    // chapter_content.html is not a page: it is the saving project's extracted text of this one.
                    expected: bosslsk + "qidian/chapter_content.html",
                    paragraphs: 52, starts: "西阳市，云海小区！", ends: "“我不想，我不想，我不想长大……”秦昊扫了一眼叶青儿的胸部哼哼着。"),
        ContentCase(site: "read.qidian.com", source: .community("起点中文", in: "aoaostar__legado.json"),
                    pages: [SavedPage("https://read.qidian.com/chapter/22eRNbqHujMKgXB091LLaA2/84-fqqRQy5maGfXRMrUjdw2", bosslsk + "qidian/chapter_page.html")],
                    expected: bosslsk + "qidian/chapter_content.html",
                    paragraphs: 52, starts: "西阳市，云海小区！", ends: "“我不想，我不想，我不想长大……”秦昊扫了一眼叶青儿的胸部哼哼着。"),
        ContentCase(site: "read.qidian.com", source: .community("起点中文网💰", in: "aoaostar__legado.json"),
                    pages: [SavedPage("https://read.qidian.com/chapter/22eRNbqHujMKgXB091LLaA2/84-fqqRQy5maGfXRMrUjdw2", bosslsk + "qidian/chapter_page.html")],
                    expected: bosslsk + "qidian/chapter_content.html",
                    why: "its content rule (class.read-content j_readContent@tag.p@all) works on the page; its TOC reads Qidian's JSON API",
                    paragraphs: 52, starts: "西阳市，云海小区！", ends: "“我不想，我不想，我不想长大……”秦昊扫了一眼叶青儿的胸部哼哼着。"),
        ContentCase(site: "read.qidian.com", source: .ours("qidian.json"),
                    pages: [SavedPage("https://read.qidian.com/chapter/22eRNbqHujMKgXB091LLaA2/84-fqqRQy5maGfXRMrUjdw2", bosslsk + "qidian/chapter_page.html")],
                    expected: bosslsk + "qidian/chapter_content.html",
                    paragraphs: 52, starts: "西阳市，云海小区！", ends: "“我不想，我不想，我不想长大……”秦昊扫了一眼叶青儿的胸部哼哼着。",
                    title: "第1章 我不想，我不想，不想长大！"),
        ContentCase(site: "freewebnovel.com", source: .community("FreeWebNovel"),
                    pages: [SavedPage("https://freewebnovel.com/novel/mom-is-a-slut-my-younger-sibling-is-a-bully-and-dad-is-a-thug/chapter-1",
                                      "dteviot_WebToEpub/test_chapter.html")],
                    paragraphs: 74, starts: "Chapter 1 Mom is a Camgirl, Dad is a Thug", ends: "Fuck... fuck."),
        ContentCase(site: "www.biquge.com.tw", source: .ours("biquge-com-tw.json"),
                    pages: [SavedPage("http://www.biquge.com.tw/17_17275/7633258.html", "0987363_book-downloader/7633258.html")],
                    paragraphs: 89, starts: "“主神殿开启！请轮回者做好准备！”", ends: "【所有轮回者确认！开始本次任务！】"),
        ContentCase(site: "www.akknovel.com", source: .ours("akknovel.json"),
                    pages: [SavedPage(akknovel + "chapter-703-703-a-slap-thank-you-tianwei-yuedu-for-the-great-god-certification",
                                      "7Solar7_ARC-Web-Scraper/tests/fixtures/chapter_page.html")],
                    next: akknovel + "chapter-704-704-dust-settles-thanks-to-ailuo-who-loves-eating-nyonya-dried-meat-for-the-generous-big-health-gift",
                    paragraphs: 150, starts: "The entire room fell silent in an instant.", ends: "The black-clad men: â\u{80}\u{9C}...â\u{80}\u{9D}",
                    absent: ["\u{200B}", "\u{200C}", "\u{200D}", "â\u{80}\u{8B}", "â\u{80}\u{8C}", "â\u{80}\u{8D}"],
                    title: "Chapter 703"),
        ContentCase(site: "www.akknovel.com", source: .ours("akknovel.json"),
                    pages: [SavedPage(akknovel + "chapter-704-704-dust-settles-thanks-to-ailuo-who-loves-eating-nyonya-dried-meat-for-the-generous-big-health-gift",
                                      "7Solar7_ARC-Web-Scraper/tests/fixtures/last_chapter_page.html")],
                    why: "the last chapter: its Next link goes back to the series page",
                    paragraphs: 115, starts: "Zhou Yanâ\u{80}\u{99}s entire face had twisted beyond human recognition", ends: "...",
                    absent: ["\u{200B}", "\u{200C}", "\u{200D}", "â\u{80}\u{8B}", "â\u{80}\u{8C}", "â\u{80}\u{8D}"],
                    title: "Chapter 704"),
        ContentCase(site: "www.lieshu.cc", source: .ours("lieshu.json"),
                    pages: [SavedPage("http://www.lieshu.cc/2/2732/2859321.html", bosslsk + "lieshu/chapter_content.html")],
                    expected: bosslskExpected + "lieshu/chapter_content.txt",
                    expectedExtra: [#"(?m)^一秒记住【猎书网\n】，為您提供精彩小说阅读。\n"#, "手机用户请浏览m.lieshu.cc阅读，更优质的阅读体验。",
                                    #"(?m)^\( 天神诀  http://www.lieshu.cc/2/2732/ \)$"#],
                    why: "the saving project keeps the site's ad lines (its 一秒记住 line split where the link was); our replaceRegex removes them",
                    paragraphs: 46, starts: "昆仑山下。", ends: "在那山顶云端之上，一道银色光柱冲天而起，直入鸿蒙宇宙！",
                    absent: ["章节错误", "点此举报", "猎书网", "lieshu.cc", "一秒记住"]),
        ContentCase(site: "www.shangshu.cc", source: .ours("shangshu.json"),
                    pages: [SavedPage("http://www.shangshu.cc/99/99390/41128036.html", bosslsk + "shangshu/chapter_content.html")],
                    expected: bosslskExpected + "shangshu/chapter_content.txt",
                    expectedExtra: [#"(?m)^还在找"末世之宠物为王"免费小说\?\n"#, #"(?m)^网上直接搜索""20万本热门小说免费看,,精彩!\n"#,
                                    #"(?m)^\(\.\.=\)\n"#, #"(?m)^\( 末世之宠物为王  http://www.shangshu.cc/99/99390/ \)$"#],
                    why: "the saving project keeps the site's ad lines; our replaceRegex removes them",
                    paragraphs: 75, starts: "“小黄——”", ends: "陈锋看着屏幕最上方的几个大字，一口牛奶喷了出来。",
                    absent: ["章节错误", "点此举报", "免费小说", "shangshu.cc", "(..=)"]),
        ContentCase(site: "www.shangshu.cc", source: .ours("shangshu.json"),
                    pages: [SavedPage("http://www.shangshu.cc/99/99390/41128050.html", bosslsk + "shangshu/chapter_page.html")],
                    paragraphs: 65, starts: "虽然对庇护所公司知道末世爆发一事早就有所猜测，可一旦证实，陈锋还是心神震撼。", ends: "果然！！",
                    absent: ["章节错误", "点此举报", "免费小说", "shangshu.cc", "(..=)"]),
        ContentCase(site: "www.xxsy.net", source: .ours("xxsy.json"),
                    pages: [SavedPage("http://www.xxsy.net/chapter/7809534.html", bosslsk + "xxsy/chapter_content.html")],
                    next: "http://www.xxsy.net/chapter/7810373.html",
                    expected: bosslskExpected + "xxsy/chapter_content.txt",
                    expectedExtra: [#"\n本书由潇湘书院首发，请勿转载！$"#],
                    why: "the saving project keeps the site's 首发 notice; our replaceRegex removes it (the author's 题外话 note stays)",
                    paragraphs: 103, starts: "宽阔的平地之上，一具具尸体横七坚八的倒在地上，身体中渗出的鲜血流了满地，变黑，发红，渗入土中……",
                    ends: "本文是煞妃的前传，也就是清姐姐的故事，看过月光煞妃的人都知道清姐姐姐的性格，所以就不说是不是女强男强了。",
                    absent: ["本书由潇湘书院首发"],
                    title: "01命定相遇"),
        ContentCase(site: "unknown 52mb wap template (rehosted)", source: .ours("52mb-wap.json"),
                    pages: [SavedPage("http://52mb-template.invalid/book/1047591.html", "kangyanbin_xs/1047591.html"),
                            SavedPage("http://52mb-template.invalid/book/1047591_2.html", "kangyanbin_xs/1047591_2.html"),
                            SavedPage("http://52mb-template.invalid/book/1047591_3.html", "kangyanbin_xs/1047591_3.html")],
                    next: "http://52mb-template.invalid/book/1047592.html",
                    why: "one chapter over three pages followed through the 下一章 link while it points at a _N page",
                    paragraphs: 84, starts: "第1章\n豪华的萧家别墅，一片灯火通明。", ends: "“老爷说，这卡里是给你的一点零花钱，不多，一共一百亿！”",
                    absent: ["本章未完", "下一页"],
                    title: "上门龙婿叶辰 第1章"),
        ContentCase(site: "kakuyomu.jp", source: .ours("kakuyomu.json"),
                    pages: [SavedPage("https://kakuyomu.jp/works/822139839100185440/episodes/822139839100503950",
                                      tsukuyomi + "kakuyumu-822139839100185440-chapter-1.html")],
                    paragraphs: 70, starts: "――貞操観念逆転世界。", ends: "5話までがプロローグです。",
                    title: "第1話\u{3000}どう見ても貞操観念が逆転している"),
        ContentCase(site: "ncode.syosetu.com", source: .ours("syosetu-ncode.json"),
                    pages: [SavedPage("https://ncode.syosetu.com/n2032iz/1/", tsukuyomi + "ncode-n2032iz-chapter-1.html")],
                    paragraphs: 102, starts: "「ありがとうございましたー……ふぅ」",
                    ends: "それが――僕が「ユニコーン」を偶然に見つけちゃって……見初められるきっかけだった。",
                    title: "１話\u{3000}女の子として勘違いされたらしい、ユニコーンとの出会い"),
        ContentCase(site: "syosetu.org", source: .ours("syosetu-org.json"),
                    pages: [SavedPage("https://syosetu.org/novel/375522/1.html", tsukuyomi + "syosetu-org-375522-chapter-1.html")],
                    paragraphs: 61, starts: "俺はどうやら死んだらしい、らしいというのは自分が未だに死んだ実感を得られていないからだ。",
                    ends: "───俺は、この決定を後に死ぬほど後悔することになる。"),
        ContentCase(site: "book.zongheng.com", source: .ours("zongheng.json"),
                    pages: [SavedPage("http://book.zongheng.com/chapter/672340/37010929.html", "0987363_book-downloader/zongheng_txt.html")],
                    paragraphs: 71, starts: "年轻道人已经想好一大堆措辞，来应对草鞋少年那个“是谁”的问题，",
                    ends: "走在泥瓶巷里的少年，好像想起了谁，一下子就泪流满面了。",
                    absent: ["捧场", "月票", "纵横币"],
                    title: "第十四章 五月初五"),
    ]
}

@Suite("Conformance: real sources on real saved pages",
       .enabled(if: Corpus.isAvailable, "the shared corpus (<repo>/../shared/corpus/pages/MANIFEST.json) is absent"))
struct ConformanceTests {
    @Test("TOC through SourceEngine", arguments: TocCase.all)
    func toc(_ test: TocCase) async throws {
        try await Corpus.offCooperativePool { try await check(test) }
    }

    private func check(_ test: TocCase) async throws {
        let start = try #require(test.pages.first)
        let manifestPage = try Corpus.manifestPage(start.path)
        #expect(manifestPage.kind == "toc")
        for page in test.pages {
            try Corpus.checkCharset(try Corpus.manifestPage(page.path), bytes: try Corpus.bytes(page.path), url: page.url)
        }
        let site = try SavedSite(test.pages)
        var source = try Corpus.source(test.source, for: manifestPage)
        if let unsaved = test.unsavedNext {
            // The source pages on: the engine asks for the next page, which was not saved, and keeps the
            // chapters of the pages before it, saying why the list stops there.
            let partial = try await SourceEngine(source: source, transport: site).toc(url: start.url)
            #expect(partial.incomplete?.contains(unsaved) == true, "\(partial.incomplete ?? "complete")")
            #expect(partial.incomplete?.contains("404") == true)
            #expect(!partial.chapters.isEmpty)
            source = try Corpus.source(test.source, for: manifestPage, dropping: "ruleToc.nextTocUrl")
        }
        let toc = try await SourceEngine(source: source, transport: site).toc(url: start.url)
        // A source's webView options stay after its chapter URLs (for the content step); the saving projects
        // list the addresses.
        let chapters = toc.chapters.map { chapter in
            var address = chapter
            address.url = WebViewOptions.address(of: chapter.url)
            return address
        }

        #expect(toc.pages == test.pages.map(\.url), "every saved TOC page is read, in order")
        #expect(toc.droppedDuplicates == test.duplicates, "duplicates dropped: \(test.why)")
        #expect(chapters.count == test.count, "\(test.why)")
        #expect(chapters.first?.title == test.first.title)
        #expect(chapters.first?.url == test.first.url)
        #expect(chapters.last?.title == test.last.title)
        #expect(chapters.last?.url == test.last.url)
        #expect(chapters.filter(\.isVIP).count == test.vip)
        #expect(chapters.allSatisfy { !$0.title.isEmpty && !$0.isVolume })
        #expect(chapters.allSatisfy { $0.url.hasPrefix("http://") || $0.url.hasPrefix("https://") })
        #expect(chapters.allSatisfy { !$0.url.contains(" ") && !$0.url.contains("{") && !$0.url.contains("#") })
        #expect(Set(chapters.map(\.url)).count == chapters.count, "no duplicate URLs")
        #expect(chapters.enumerated().allSatisfy { $0.offset == $0.element.index })
        #expect(chapters.allSatisfy { !$0.title.contains("\n") })
        Corpus.checkClean(chapters.map(\.title).joined(separator: "\n"), "titles")
        let overruled = test.pages.contains { page in
            (try? Corpus.manifestPage(page.path)).map { $0.charset_meta == "gbk" && $0.charset_bytes == "utf-8" } ?? false
        }
        #expect(toc.warnings.contains { $0.contains("says gbk but the bytes are valid UTF-8") } == overruled,
                "the engine reports a declared charset it overruled: \(toc.warnings)")

        if let expectedPath = test.expected {
            struct Expected: Decodable { var url: String; var title: String }
            let data = try Data(contentsOf: URL(fileURLWithPath: Corpus.expectedPath(expectedPath)))
            let expected = try JSONDecoder().decode([Expected].self, from: data)
            if let why = test.expectedPrefix {
                #expect(expected.count < chapters.count, "\(why)")
            } else {
                #expect(expected.count == chapters.count)
            }
            for (got, want) in zip(chapters, expected) {
                #expect(got.title == want.title)
                #expect(got.url == want.url)
            }
        }
    }

    @Test("content through SourceEngine", arguments: ContentCase.all)
    func content(_ test: ContentCase) async throws {
        try await Corpus.offCooperativePool { try await check(test) }
    }

    private func check(_ test: ContentCase) async throws {
        let start = try #require(test.pages.first)
        let manifestPage = try Corpus.manifestPage(start.path)
        #expect(manifestPage.kind == "content")
        for page in test.pages {
            try Corpus.checkCharset(try Corpus.manifestPage(page.path), bytes: try Corpus.bytes(page.path), url: page.url)
        }
        let source = try Corpus.source(test.source, for: manifestPage)
        let engine = SourceEngine(source: source, transport: try SavedSite(test.pages))
        let next = test.next.map { Chapter(index: 1, title: "next", url: $0) }
        let chapter = Chapter(index: 0, title: "this", url: start.url)
        let content = try await engine.content(of: chapter, next: next)
        let text = content.text

        #expect(content.pages == test.pages.map(\.url), "every page of the chapter is read, and no other")
        #expect(!text.isEmpty)
        Corpus.checkClean(text, test.testDescription)
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.allSatisfy { !$0.isEmpty && String($0) == Corpus.normalised(String($0)) },
                "paragraphs are trimmed, one per line, none empty")
        #expect(content.title == test.title)
        if !test.starts.isEmpty { #expect(text.hasPrefix(test.starts)) }
        if !test.ends.isEmpty { #expect(text.hasSuffix(test.ends)) }
        if test.paragraphs > 0 { #expect(lines.count == test.paragraphs) }
        for ad in test.absent {
            #expect(!text.contains(ad), "\(ad) is left in the text")
        }
        let overruled = test.pages.contains { page in
            (try? Corpus.manifestPage(page.path)).map { $0.charset_meta == "gbk" && $0.charset_bytes == "utf-8" } ?? false
        }
        #expect(content.warnings.contains { $0.contains("says gbk but the bytes are valid UTF-8") } == overruled,
                "the engine reports a declared charset it overruled: \(content.warnings)")

        if let expectedPath = test.expected {
            var expected = Corpus.normalised(try String(contentsOfFile: Corpus.expectedPath(expectedPath), encoding: .utf8))
            for extra in test.expectedExtra {
                let before = expected
                expected = expected.replacingOccurrences(of: extra, with: "", options: .regularExpression)
                #expect(expected != before, "the expected text holds \(extra): \(test.why)")
            }
            #expect(text == Corpus.normalised(expected))
        }
    }

    @Test("book info against the saving project's book_detail.json", arguments: InfoCase.all)
    func info(_ test: InfoCase) async throws {
        try await Corpus.offCooperativePool { try await check(test) }
    }

    private func check(_ test: InfoCase) async throws {
        let manifestPage = try Corpus.manifestPage(test.page.path)
        let source = try Corpus.source(test.source, for: manifestPage)
        let info = try await SourceEngine(source: source, transport: try SavedSite([test.page])).bookInfo(url: test.page.url)
        struct Expected: Decodable {
            var title: String, author: String, folder_url: String, category: String, introduction: String
        }
        let data = try Data(contentsOf: URL(fileURLWithPath: Corpus.expectedPath(test.expected)))
        let expected = try JSONDecoder().decode(Expected.self, from: data)
        let pairs: [String: (got: String, want: String)] = [
            "name": (info.name, expected.title), "author": (info.author, expected.author),
            "coverURL": (info.coverURL, expected.folder_url), "kind": (info.kind, expected.category),
            "intro": (Corpus.normalised(info.intro), Corpus.normalised(expected.introduction)),
        ]
        for (field, pair) in pairs {
            if let difference = test.differs[field] {
                #expect(pair.got != pair.want, "\(field) was expected to differ: \(difference.why)")
                if let adjust = difference.expectedBecomes {
                    #expect(pair.got == adjust(pair.want), "\(field): \(difference.why)")
                }
                if difference.oursStartsWithExpected {
                    #expect(pair.got.hasPrefix(pair.want + "\n"), "\(field): \(difference.why)")
                }
            } else {
                #expect(pair.got == pair.want, "\(field)")
            }
        }
        Corpus.checkClean(info.intro, "intro")
    }

    @Test("book info of our sources on book pages without expected output", arguments: BookPageCase.all)
    func bookPage(_ test: BookPageCase) async throws {
        try await Corpus.offCooperativePool { try await check(test) }
    }

    private func check(_ test: BookPageCase) async throws {
        let manifestPage = try Corpus.manifestPage(test.page.path)
        let source = try Corpus.source(.ours(test.source), for: manifestPage)
        let info = try await SourceEngine(source: source, transport: try SavedSite([test.page])).bookInfo(url: test.page.url)
        #expect(info.name == test.name)
        #expect(info.author == test.author)
        #expect(info.tocURL == test.tocURL)
        #expect(info.intro.hasPrefix(test.introStarts))
        #expect(info.coverURL.isEmpty || info.coverURL.hasPrefix("http"))
        Corpus.checkClean(info.intro, "intro")
        // The TOC URL leads to a saved TOC page the TOC cases read.
        #expect(TocCase.all.contains { $0.pages.first?.url == test.tocURL })
    }

    @Test("community sources for a page's host that do not fit it fail the documented way", arguments: MismatchCase.all)
    func mismatch(_ test: MismatchCase) async throws {
        try await Corpus.offCooperativePool { try await check(test) }
    }

    private func check(_ test: MismatchCase) async throws {
        let manifestPage = try Corpus.manifestPage(test.page.path)
        let source = try Corpus.source(test.source, for: manifestPage)
        let engine = SourceEngine(source: source, transport: try SavedSite([test.page]))
        switch test.outcome {
        case .unusable(let field):
            #expect(source.problems.contains { $0.field.hasSuffix(field) }, "\(test.why)")
            await #expect(throws: EngineError.self, "\(test.why)") {
                if manifestPage.kind == "toc" {
                    _ = try await engine.toc(url: test.page.url)
                } else {
                    _ = try await engine.content(of: Chapter(index: 0, title: "", url: test.page.url))
                }
            }
        case .noChapters:
            #expect(manifestPage.kind == "toc")
            let toc = try await engine.toc(url: test.page.url)
            #expect(toc.chapters.isEmpty, "\(test.why)")
        case .noText:
            #expect(manifestPage.kind == "content")
            let content = try await engine.content(of: Chapter(index: 0, title: "", url: test.page.url))
            #expect(content.text.isEmpty, "\(test.why)")
        }
    }

    @Test("every TOC and content page of the manifest is covered, or listed with why it cannot be")
    func coverage() throws {
        let covered = Set(TocCase.all.flatMap { $0.pages.map(\.path) } + ContentCase.all.flatMap { $0.pages.map(\.path) })
        let pages = try Corpus.manifest().pages.filter { $0.kind == "toc" || $0.kind == "content" }
        #expect(pages.count == 42)
        for page in pages {
            let unusable = MismatchCase.notPages[page.local_path]
            #expect(covered.contains(page.local_path) != (unusable != nil),
                    "\(page.local_path) must be tested or listed as unusable (not both)")
        }
        // Every community source the manifest lists for a TOC or content page is either used or explained.
        for page in pages {
            for ref in page.legado_sources {
                let used = (TocCase.all.map { ($0.source, $0.pages) } + ContentCase.all.map { ($0.source, $0.pages) })
                    .contains { choice, saved in
                        guard case .community(let name, let file) = choice, name == ref.bookSourceName else { return false }
                        return (file.map { ref.in.hasSuffix($0) } ?? true) && saved.contains { $0.path == page.local_path }
                    }
                let explained = MismatchCase.all.contains { test in
                    guard case .community(let name, let file) = test.source, name == ref.bookSourceName else { return false }
                    return (file.map { ref.in.hasSuffix($0) } ?? true) && test.page.path == page.local_path
                }
                #expect(used || explained || MismatchCase.notPages[page.local_path] != nil,
                        "\(ref.bookSourceName) (\(ref.in)) on \(page.local_path) is neither tested nor explained")
            }
        }
    }
}

/// A community source that targets a page's host but does not fit the page, and how it fails.
struct MismatchCase: Sendable, CustomTestStringConvertible {
    enum Outcome: Sendable {
        /// The step cannot run: a rule it needs is JavaScript (or otherwise not runnable).
        case unusable(field: String)
        /// The TOC rules select nothing on the page.
        case noChapters
        /// The content rules select nothing on the page.
        case noText
    }

    var page: SavedPage
    var source: SourceChoice
    var outcome: Outcome
    var why: String
    var testDescription: String { "\(page.path) with \(source)" }

    static let qidianTOC = SavedPage("https://book.qidian.com/info/1010696129", TocCase.bosslsk + "qidian/chapters.html")
    static let qidianChapter = SavedPage("https://read.qidian.com/chapter/22eRNbqHujMKgXB091LLaA2/84-fqqRQy5maGfXRMrUjdw2",
                                         TocCase.bosslsk + "qidian/chapter_page.html")
    static let list17k = SavedPage("https://www.17k.com/list/117302.html", "zgia_save17k/17k.html")

    static let all: [MismatchCase] = [
        MismatchCase(page: qidianTOC, source: .community("起点中文", in: "XIU2__Yuedu.json"), outcome: .noChapters,
                     why: "AllInOne regex over the embedded JSON (\"cN\":…) of Qidian's older pages; this saved page has none, so the JavaScript chapterUrl never runs"),
        MismatchCase(page: qidianTOC, source: .community("起点中文", in: "aoaostar__legado.json"), outcome: .noChapters,
                     why: "AllInOne regex over the embedded JSON (\"cN\":…) of Qidian's older pages; this saved page has none, so the JavaScript chapterUrl never runs"),
        MismatchCase(page: qidianTOC, source: .community("💵 起点中文", in: "LM-Firefly__booksource.json"), outcome: .noChapters,
                     why: "the catalog (#allCatalog .catalog-volume) is rebuilt by @js: from elements this saved page does not have"),
        MismatchCase(page: qidianTOC, source: .community("起点中文网💰", in: "aoaostar__legado.json"), outcome: .noChapters,
                     why: "JSONPath ($..Chapters[*]) for Qidian's catalog API, not the HTML page"),
        MismatchCase(page: qidianChapter, source: .community("💵 起点中文", in: "LM-Firefly__booksource.json"), outcome: .noText,
                     why: "the mobile site's chapter layout (.content p); the desktop page has div.read-content"),
        MismatchCase(page: list17k, source: .community("💵 17K小说"), outcome: .noChapters,
                     why: "written for today's layout (.Volume dd a); the saved page is the 2013 one (div.directory_con)"),
        MismatchCase(page: list17k, source: .community("💰17k小说"), outcome: .noChapters,
                     why: "JSONPath ($.data.volumes..chapters[*]) for the api.17k.com JSON answer, not the HTML page"),
        MismatchCase(page: SavedPage("http://book.zongheng.com/chapter/672340/37010929.html", "0987363_book-downloader/zongheng_txt.html"),
                     source: .community("💵 纵横中文网"), outcome: .noText,
                     why: "written for the mobile site m.zongheng.com (class.content@p); the desktop page has div#readerFs"),
    ]

    /// Manifest TOC/content pages that are not pages a source could read, and why.
    static let notPages: [String: String] = [
        TocCase.bosslsk + "qidian/chapter_content.html":
            "not a page: the saving project's extracted text of chapter_page.html (no markup); used as that page's expected text",
    ]
}

/// A book page with the saving project's book_detail.json: name, author, cover, category and intro must agree,
/// except where the case says why they differ (and, where it can, what the expected value becomes).
struct InfoCase: Sendable, CustomTestStringConvertible {
    struct Difference: Sendable {
        var why: String
        /// The expected value turned into ours, when the difference is mechanical.
        var expectedBecomes: (@Sendable (String) -> String)?
        /// Ours is the expected value followed by more paragraphs.
        var oursStartsWithExpected = false
    }

    var site: String
    var source: SourceChoice
    var page: SavedPage
    var expected: String
    var differs: [String: Difference] = [:]
    var testDescription: String { "\(site) book info with \(source)" }

    static let bosslsk = TocCase.bosslsk
    static let bosslskExpected = TocCase.bosslskExpected
    static let withoutLabel = Difference(why: "our source drops the 介绍： label the page puts before the intro, and its @text "
                                         + "collapses the intro's &nbsp;&nbsp;&nbsp;&nbsp; to one space, as jsoup's text() does in Legado") {
        ($0.hasPrefix("介绍：") ? String($0.dropFirst(3)) : $0)
            .replacingOccurrences(of: "\u{00A0}+", with: " ", options: .regularExpression)
    }

    static let all: [InfoCase] = [
        InfoCase(site: "www.biquge5200.com", source: .community("笔趣阁㉘"),
                 page: SavedPage("http://www.biquge5200.com/86_86306/", bosslsk + "biquge/book_detail.html"),
                 expected: bosslskExpected + "biquge/book_detail.json",
                 differs: [
                    "kind": Difference(why: "the source joins og:novel:update_time, category and status") { "2018-01-04 09:17,\($0),连载" },
                    "intro": Difference(why: "the source reads og:description, where the intro has no line breaks; the saving project read #intro") {
                        $0.replacingOccurrences(of: "\n", with: "")
                    },
                 ]),
        InfoCase(site: "www.hongxiu.com", source: .community("💵 红袖添香"),
                 page: SavedPage("https://www.hongxiu.com/book/6972481904230701", bosslsk + "hongxiu/book_detail.html"),
                 expected: bosslskExpected + "hongxiu/book_detail.json",
                 differs: [
                    "name": Difference(why: "the source reads .last-nav, which this (older) page does not have") { _ in "" },
                    "kind": Difference(why: "the source joins every tag and the update line") { _ in "连载中,签约,VIP,现代言情,豪门世家,15小时前" },
                    "intro": Difference(why: "the source's .intro@html takes every .intro on the page, the book's and then the recommended books', as Legado does",
                                        oursStartsWithExpected: true),
                 ]),
        InfoCase(site: "www.lieshu.cc", source: .ours("lieshu.json"),
                 page: SavedPage("http://www.lieshu.cc/2/2732/", bosslsk + "lieshu/book_detail.html"),
                 expected: bosslskExpected + "lieshu/book_detail.json", differs: ["intro": withoutLabel]),
        InfoCase(site: "www.shangshu.cc", source: .ours("shangshu.json"),
                 page: SavedPage("http://www.shangshu.cc/99/99390/", bosslsk + "shangshu/book_detail.html"),
                 expected: bosslskExpected + "shangshu/book_detail.json", differs: ["intro": withoutLabel]),
        InfoCase(site: "www.xxsy.net", source: .ours("xxsy.json"),
                 page: SavedPage("http://www.xxsy.net/info/897569.html", bosslsk + "xxsy/book_detail.html"),
                 expected: bosslskExpected + "xxsy/book_detail.json"),
        InfoCase(site: "book.qidian.com", source: .ours("qidian.json"),
                 page: SavedPage("https://book.qidian.com/info/1010696129", bosslsk + "qidian/book_detail.html"),
                 expected: bosslskExpected + "qidian/book_detail.json",
                 differs: ["kind": Difference(why: "our source has no kind rule (the category links are in the breadcrumb)") { _ in "" }]),
    ]
}

/// A book page read with one of our sources where the saving project recorded nothing: the values are the
/// page's own (its heading, author link, intro), read by eye.
struct BookPageCase: Sendable, CustomTestStringConvertible {
    var source: String
    var page: SavedPage
    var name: String
    var author: String
    var tocURL: String
    var introStarts: String
    var testDescription: String { "\(page.path) with \(source)" }

    static let all: [BookPageCase] = [
        BookPageCase(source: "biquge-com-tw.json",
                     page: SavedPage("http://www.biquge.com.tw/17_17275/", "0987363_book-downloader/biquge.html"),
                     name: "主神崛起", author: "文抄公", tocURL: "http://www.biquge.com.tw/17_17275/",
                     introStarts: "一觉醒来穿越成反派？这剧本不对！"),
        BookPageCase(source: "akknovel.json",
                     page: SavedPage("https://www.akknovel.com/series/after-rebirth-i-was-forced-to-become-the-mafia-princess",
                                     "7Solar7_ARC-Web-Scraper/tests/fixtures/series_page.html"),
                     name: "After Rebirth, I Was Forced to Become the Mafia Princess!", author: "",
                     tocURL: "https://www.akknovel.com/series/after-rebirth-i-was-forced-to-become-the-mafia-princess",
                     introStarts: "[School Rebirth + Strong Female Lead + Fake Mafia Princess"),
        BookPageCase(source: "kakuyomu.json",
                     page: SavedPage("https://kakuyomu.jp/works/822139839100185440", TocCase.tsukuyomi + "kakuyumu-822139839100185440.html"),
                     name: "貞操観念逆転世界かと思ったら、ただクラスの重すぎる女子に囲まれていただけでした。",
                     author: "とおさー@ファンタジア大賞《金賞》", tocURL: "https://kakuyomu.jp/works/822139839100185440",
                     introStarts: "俺が外堀を埋められているのは"),
        // The novel page's TOC URL is the AJAX chapter archive, built from its data-novel-id.
        BookPageCase(source: "novelbin-me.json",
                     page: SavedPage("https://novelbin.me/novel-book/i-accumulate-spirit-roots-for-my-next-life",
                                     "dteviot_WebToEpub/scratch/novelbin_test.html"),
                     name: "I Accumulate Spirit Roots for My Next Life", author: "China's Treasure Basin",
                     tocURL: "https://novelbin.me/ajax/chapter-archive?novelId=i-accumulate-spirit-roots-for-my-next-life",
                     introStarts: "Li Jizhou traversed to another world"),
        BookPageCase(source: "biqukan.json",
                     page: SavedPage("https://www.biqukan.com/3_3037/", "guozengjie_Scrapy/biqukan.html"),
                     name: "斗破苍穹", author: "天蚕土豆", tocURL: "https://www.biqukan.com/3_3037/",
                     introStarts: "这里是属于斗气的世界，没有花俏艳丽的魔法"),
        BookPageCase(source: "shuquge.json",
                     page: SavedPage("http://www.shuquge.com/txt/30668/index.html", "iamlong_httputilities/test/book.html"),
                     name: "修真聊天群", author: "圣骑士的传说(书坊)", tocURL: "http://www.shuquge.com/txt/30668/index.html",
                     introStarts: "某天，宋书航意外加入了一个仙侠中二病资深患者的交流群"),
    ]
}

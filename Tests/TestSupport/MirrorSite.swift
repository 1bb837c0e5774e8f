import BookRuleLocking
import Foundation
import BookRuleHTTP

/// One generated book served by a `FaultServer` on a loopback address of its own (127.0.0.2, .3, …), so that
/// several instances are mirrors of one site on different hosts: the same book, chapters and text, with
/// chapter titles written in each mirror's `TitleStyle`.
///
///     GET /search?q=KEY     results (the book when KEY is part of its name; nothing otherwise)
///     GET /book/1/          book page and whole TOC (another `bookPath` gives the mirror URLs of its own)
///     GET /book/1/N.html    chapter N
package final class MirrorSite: Sendable {
    /// How a mirror writes chapter titles; the words after the number are the same on every mirror.
    package enum TitleStyle: Sendable {
        /// 第12章 星河
        case arabic
        /// 第十二章　星河 (Chinese numerals, a full-width space)
        case chinese
        /// 第 12 章星河 (spaces inside, none before the words)
        case spaced
        /// 第12章 星河（求月票） (a note after the words: the chapter numbers agree, the titles do not)
        case annotated
    }

    package static let bookName = "镜中之书"
    package static let author = "佚名"

    package let server: FaultServer
    package let style: TitleStyle
    /// The book page's path, `/book/1/` unless the mirror lays its URLs out otherwise.
    package let bookPath: String
    private let settings: Settings

    /// What a test changes while the mirror runs, shared with the server's handler.
    private final class Settings: Sendable {
        let chapters: Locked<Int>
        let failing = Locked<Set<Int>>([])
        let truncated = Locked<Set<Int>>([])
        let decoys = Locked<Set<Int>>([])
        init(chapters: Int) { self.chapters = Locked(chapters) }
    }

    /// Starts a mirror on `host` listing `chapters` chapters, the book at `bookPath` (ending in `/`); `delay`
    /// slows every answer.
    package init(host: String, chapters: Int, style: TitleStyle = .arabic, delay: Double = 0,
                 maxRequests: Int = 5000, bookPath: String = "/book/1/") throws {
        let settings = Settings(chapters: chapters)
        self.settings = settings
        self.style = style
        self.bookPath = bookPath
        server = try FaultServer(host: host, lifetime: 180, maxRequests: maxRequests) { request, _ in
            let total = settings.chapters.withLock { $0 }
            let html = [HTTPHeader("Content-Type", "text/html; charset=utf-8")]
            let reply: FaultServer.Behaviour
            if request.path == "/search" {
                let key = (request.query ?? "").split(separator: "=", maxSplits: 1).last
                    .flatMap { String($0).removingPercentEncoding } ?? ""
                let item = "<div class='book'><a class='name' href='\(bookPath)'>\(MirrorSite.bookName)</a>"
                    + "<span class='author'>\(MirrorSite.author)</span>"
                    + "<span class='last'>\(MirrorSite.title(total, style: style))</span></div>"
                let items = !key.isEmpty && MirrorSite.bookName.contains(key) ? item : ""
                reply = .ok("<html><body><div id='results'>\(items)</div></body></html>", headers: html)
            } else if request.path == bookPath {
                let items = (1...max(1, total)).map {
                    "<dd><a href=\"\(bookPath)\($0).html\">\(MirrorSite.title($0, style: style))</a></dd>"
                }.joined()
                reply = .ok("<html><body><h1>\(MirrorSite.bookName)</h1><p id='author'>\(MirrorSite.author)</p>"
                            + "<dl id='list'>\(items)</dl></body></html>", headers: html)
            } else if request.path.hasPrefix(bookPath), let number = Int(request.path.dropFirst(bookPath.count).dropLast(5)),
                      (1...total).contains(number) {
                if settings.failing.withLock({ $0.contains(number) }) {
                    reply = .status(500, retryAfter: "0")
                } else {
                    var paragraphs = MirrorSite.paragraphs(number)
                    if settings.truncated.withLock({ $0.contains(number) }) { paragraphs = Array(paragraphs.prefix(1)) }
                    if settings.decoys.withLock({ $0.contains(number) }) { paragraphs = MirrorSite.decoyParagraphs(number) }
                    let body = paragraphs.map { "　　\($0)" }.joined(separator: "<br><br>")
                    reply = .ok("<html><body><h1>\(MirrorSite.title(number, style: style))</h1>"
                                + "<div id='content'>\(body)</div></body></html>", headers: html)
                }
            } else {
                reply = .status(404)
            }
            return delay > 0 ? .slow(delay: delay, then: reply) : reply
        }
    }

    /// `http://HOST:PORT`.
    package var baseURL: String { server.baseURL }
    /// The book page.
    package var bookURL: String { server.baseURL + bookPath }

    /// Lists `value` chapters from now on.
    package func setChapters(_ value: Int) { settings.chapters.withLock { $0 = value } }
    /// Makes these chapters answer 500 from now on.
    package func failChapters(_ numbers: Set<Int>) { settings.failing.withLock { $0 = numbers } }

    /// Makes these chapters serve only their first paragraph from now on (a cut-off copy).
    package func truncateChapters(_ numbers: Set<Int>) { settings.truncated.withLock { $0 = numbers } }
    /// Makes these chapters serve other text from now on (a decoy).
    package func decoyChapters(_ numbers: Set<Int>) { settings.decoys.withLock { $0 = numbers } }

    /// Chapter numbers requested so far, in order.
    package var chapterRequests: [Int] {
        server.records.filter { $0.path.hasPrefix(bookPath) && $0.path.hasSuffix(".html") }
            .compactMap { Int($0.path.dropFirst(bookPath.count).dropLast(5)) }
    }

    /// The words after the number (the same on every mirror).
    package static func words(_ number: Int) -> String {
        let words = ["星河", "旅人", "山海", "长夜", "灯火", "青石", "归途", "远方", "少年", "古城", "风雪"]
        return words[number % words.count] + words[(number / words.count) % words.count]
    }

    /// Chapter `number`'s title in `style`.
    package static func title(_ number: Int, style: TitleStyle) -> String {
        switch style {
        case .arabic: "第\(number)章 \(words(number))"
        case .chinese: "第\(chineseNumeral(number))章　\(words(number))"
        case .spaced: "第 \(number) 章\(words(number))"
        case .annotated: "第\(number)章 \(words(number))（求月票）"
        }
    }

    /// Chapter `number`'s paragraphs.
    package static func paragraphs(_ number: Int) -> [String] {
        (1...3).map { "第\(number)章第\($0)段：镜像正文 \(number * 37 + $0)。" }
    }

    /// What a decoy chapter `number` serves instead: as long as the real one, sharing none of its wording.
    package static func decoyParagraphs(_ number: Int) -> [String] {
        (1...3).map { "本站提示：请勿转载，更多精彩内容请访问官方网站阅读全文，感谢支持编号\(number * 11 + $0)！" }
    }

    /// Chapter `number`'s text as the library saves it.
    package static func text(_ number: Int) -> String { paragraphs(number).joined(separator: "\n") }

    /// `number` (1…99 999) in Chinese numerals as sites write them: 十二, 一百零三, 两千, 一千二百.
    package static func chineseNumeral(_ number: Int) -> String {
        let digits = Array("零一二三四五六七八九")
        let units = ["", "十", "百", "千", "万"]
        let decimal = String(number).compactMap(\.wholeNumberValue)
        var text = ""
        var pendingZero = false
        for (offset, digit) in decimal.enumerated() {
            let place = decimal.count - 1 - offset
            if digit == 0 {
                pendingZero = !text.isEmpty
                continue
            }
            if pendingZero { text.append("零") }
            pendingZero = false
            if digit == 1 && place == 1 && text.isEmpty {
                text += "十"
            } else if digit == 2 && place >= 3 && text.isEmpty {
                text += "两" + units[place]
            } else {
                text += String(digits[digit]) + units[place]
            }
        }
        return text
    }

    /// A source for this mirror named `name`, written into `directory`; returns its path.
    package func sourceFile(named name: String, in directory: String) throws -> String {
        let path = directory + "/\(name).json"
        try sourceJSON(named: name).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// The source's JSON.
    package func sourceJSON(named name: String) -> String {
        """
        {"bookSourceUrl": "\(server.baseURL)", "bookSourceName": "\(name)",
         "searchUrl": "/search?q={{key}}",
         "ruleSearch": {"bookList": "//div[@class='book']", "name": "//a/text()", "author": "//span[@class='author']/text()",
                        "lastChapter": "//span[@class='last']/text()", "bookUrl": "//a/@href"},
         "ruleBookInfo": {"name": "//h1/text()", "author": "//p[@id='author']/text()"},
         "ruleToc": {"chapterList": "//dl[@id='list']/dd/a", "chapterName": "/text()", "chapterUrl": "/@href"},
         "ruleContent": {"content": "//div[@id='content']"}}
        """
    }
}

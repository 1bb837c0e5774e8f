import BookRuleEngine

/// The lines of Legado's source debug log (its `Debug` object), for what our engine's steps return: each line
/// stamped with the time since the debug run started as `[mm:ss.SSS]`, steps opened with ︾ and closed with
/// ︽, a field's rule as ┌ and its value as └, facts with ◇, notices with ≡ and the run's start with ⇒.
/// Legado prints a field's lines while the rule runs; here they are printed from the step's result once it
/// is back, in Legado's order, so the same fields appear with the same markers.
struct SourceDebugLog: Sendable {
    /// When the run started.
    let start: ContinuousClock.Instant

    init(start: ContinuousClock.Instant = .now) {
        self.start = start
    }

    /// `message` with the time stamp (Legado's `showTime`), or as it is.
    func line(_ message: String, showTime: Bool = true, at now: ContinuousClock.Instant = .now) -> String {
        guard showTime else { return message }
        return "\(Self.stamp(now - start)) \(message)"
    }

    /// `[mm:ss.SSS]` of `elapsed` (minutes wrap at an hour, as a clock's minute field).
    static func stamp(_ elapsed: Duration) -> String {
        let total = max(0, Int64(elapsed.components.seconds) * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000)
        let minutes = (total / 60_000) % 60
        let seconds = (total / 1000) % 60
        let milliseconds = total % 1000
        return "[\(pad(minutes, 2)):\(pad(seconds, 2)).\(pad(milliseconds, 3))]"
    }

    private static func pad(_ value: Int64, _ width: Int) -> String {
        let text = String(value)
        return String(repeating: "0", count: max(0, width - text.count)) + text
    }

    /// A field: the rule's label, then its value.
    static func field(_ label: String, _ value: String) -> [String] {
        ["┌\(label)", "└\(value)"]
    }

    /// What a search (or explore) page gave: the list, the first book's fields, the count.
    static func searchLines(_ page: SearchPage) -> [String] {
        var lines = ["┌获取书籍列表", "└列表大小:\(page.results.count)"]
        if let first = page.results.first {
            lines += bookFields(name: first.name, author: first.author, kind: first.kind, wordCount: first.wordCount,
                                lastChapter: first.lastChapter, intro: first.intro, cover: first.coverURL)
            lines += field("获取详情页链接", first.bookURL)
        }
        lines += page.warnings.map { "≡\($0)" }
        lines.append("◇书籍总数:\(page.results.count)")
        return lines
    }

    /// What a book page gave.
    static func infoLines(_ book: BookInfo) -> [String] {
        bookFields(name: book.name, author: book.author, kind: book.kind, wordCount: book.wordCount,
                   lastChapter: book.lastChapter, intro: book.intro, cover: book.coverURL)
            + field("获取目录链接", book.tocURL) + book.warnings.map { "≡\($0)" }
    }

    /// The fields a search result and a book page share, in Legado's order.
    private static func bookFields(name: String, author: String, kind: String, wordCount: String, lastChapter: String,
                                   intro: String, cover: String) -> [String] {
        [("获取书名", name), ("获取作者", author), ("获取分类", kind), ("获取字数", wordCount), ("获取最新章节", lastChapter),
         ("获取简介", intro), ("获取封面链接", cover)].flatMap { field($0.0, $0.1) }
    }

    /// What a table of contents gave: the list, its first chapter, the counts.
    static func tocLines(_ toc: TableOfContents) -> [String] {
        var lines: [String] = []
        if toc.pages.count > 1 { lines.append("◇目录总页数:\(toc.pages.count)") }
        lines += ["┌获取目录列表", "└列表大小:\(toc.chapters.count)", "┌解析目录列表", "└目录列表解析完成"]
        if let first = toc.chapters.first {
            lines += ["≡首章信息", "◇章节名称:\(first.title)", "◇章节链接:\(first.url)", "◇章节信息:\(first.updateTime)",
                      "◇是否VIP:\(first.isVIP)", "◇是否购买:\(first.isPay)"]
        } else {
            lines.append("◇章节列表为空")
        }
        lines += toc.warnings.map { "≡\($0)" }
        lines.append("◇目录总数:\(toc.chapters.count)")
        return lines
    }

    /// What a chapter gave: its title and text.
    static func contentLines(_ content: ChapterContent, chapter: Chapter) -> [String] {
        var lines: [String] = []
        if content.pages.count > 1 { lines.append("◇本章总页数:\(content.pages.count)") }
        lines += field("获取章节名称", content.title ?? chapter.title)
        lines += field("获取正文内容", "\n" + content.text)
        lines += content.warnings.map { "≡\($0)" }
        return lines
    }
}

import BookRuleDocument
import BookRuleJSON

/// Plain-text export: one UTF-8 file as Chinese TXT readers expect it.
///
/// Layout: the title line, an author line, the intro, then every chapter as a heading line followed by its
/// paragraphs, each indented with two ideographic spaces (U+3000). Volume headings are heading lines like
/// chapters'. Entries are separated by blank lines; lines end with "\n". A picture of a text chapter (its
/// `ImageLine`) is a paragraph `[图片] URL` (`[Picture] URL` for other languages).
public enum TXTExporter {
    /// The whole book as text.
    public static func text(_ book: ExportBook) -> String {
        let labels = ExportLabels(language: book.language)
        let indent = "\u{3000}\u{3000}"
        let title = ExportText.line(book.title)
        var lines = [title.isEmpty ? labels.untitledBook : title]
        let author = ExportText.line(book.author)
        if !author.isEmpty { lines.append(labels.author + author) }
        let intro = ExportText.paragraphs(book.intro)
        if !intro.isEmpty {
            lines.append("")
            lines.append(labels.intro)
            lines.append(contentsOf: intro.map { indent + $0 })
        }
        var chapterNumber = 0
        for chapter in book.chapters {
            if !chapter.isVolume { chapterNumber += 1 }
            let heading = ExportText.line(chapter.title)
            lines.append("")
            lines.append(heading.isEmpty ? labels.untitledChapter(chapterNumber) : heading)
            let paragraphs = ExportText.paragraphs(chapter.text)
            if !paragraphs.isEmpty {
                lines.append("")
                lines.append(contentsOf: paragraphs.map { paragraph in
                    indent + (ImageLine(line: paragraph).map { labels.pictureLink($0.url) } ?? paragraph)
                })
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes `text(book)` to `path` atomically (a temporary file in the same directory, fsync, rename).
    /// Throws `ExportError.noChapters` when the book has no chapters, like the EPUB export.
    public static func write(_ book: ExportBook, to path: String) throws(ExportError) {
        guard book.chapters.contains(where: { !$0.isVolume }) else { throw .noChapters(title: book.title) }
        do {
            try LocalFile.writeAtomically(Array(text(book).utf8), to: path)
        } catch {
            throw .cannotWrite(path: path, reason: error.reason)
        }
    }
}

import BookRuleDocument

/// Which Chinese script an export is converted to (OpenCC through `ChineseConverter`): a reader who wants a
/// book from a traditional-script site in simplified characters, or the other way round.
public enum ExportConversion: String, Sendable, CaseIterable {
    /// Traditional → simplified (OpenCC `t2s`).
    case traditionalToSimplified = "t2s"
    /// Simplified → traditional (OpenCC `s2t`).
    case simplifiedToTraditional = "s2t"

    var configuration: ChineseConverter.Configuration {
        switch self {
        case .traditionalToSimplified: .traditionalToSimplified
        case .simplifiedToTraditional: .simplifiedToTraditional
        }
    }
}

extension LibraryExport {
    /// This export with the book's title, author, introduction and every chapter's title and text converted
    /// as `conversion` says (images, cover and identifiers unchanged, so a converted EPUB is the same book;
    /// image lines are not text and stay as they are, so a URL with Chinese in it still names its picture).
    /// - Throws: `ExportError.conversionFailed` when OpenCC's configuration cannot be loaded or a text fails.
    public func converted(_ conversion: ExportConversion) throws(ExportError) -> LibraryExport {
        var copy = self
        do {
            let converter = try ChineseConverter.shared(conversion.configuration)
            copy.book.title = try converter.convert(book.title)
            copy.book.author = try converter.convert(book.author)
            copy.book.intro = try converter.convert(book.intro)
            for index in copy.book.chapters.indices {
                copy.book.chapters[index].title = try converter.convert(book.chapters[index].title)
                copy.book.chapters[index].text = try Self.convert(book.chapters[index].text, with: converter)
            }
        } catch {
            throw .conversionFailed(conversion: conversion.rawValue, reason: error.description)
        }
        return copy
    }

    /// `text` converted, its image lines left alone: the text between them is converted a run at a time.
    static func convert(_ text: String, with converter: ChineseConverter) throws(ChineseConversionError) -> String {
        try transformingText(text) { (run) throws(ChineseConversionError) in try converter.convert(run) }
    }

    /// `text` with `transform` applied to the text between its image lines, a run at a time (the image lines
    /// are not text, and stay as they are so a URL still names its picture).
    static func transformingText<Failure: Error>(
        _ text: String, _ transform: (String) throws(Failure) -> String
    ) throws(Failure) -> String {
        guard ImageLine.mayOccur(in: text) else { return try transform(text) }
        var output: [String] = []
        var run: [Substring] = []
        func flush() throws(Failure) {
            if !run.isEmpty { output.append(try transform(run.joined(separator: "\n"))) }
            run = []
        }
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            if ImageLine(line: line) != nil {
                try flush()
                output.append(String(line))
            } else {
                run.append(line)
            }
        }
        try flush()
        return output.joined(separator: "\n")
    }
}

import BookRule
import Foundation

/// What `fetch`, `export` and `library` share: opening the library, finding a book, building an export.
enum LibraryAccess {
    static let help = "  --library PATH      The library database (default: $XDG_DATA_HOME/bookrule/library.sqlite)\n"

    /// Opens the library; `create` only for fetch, so a mistyped --library for export or list is an error,
    /// not a new empty database.
    static func open(_ arguments: CommandLineArguments, create: Bool) throws -> LibraryStore {
        let path = arguments.value("--library") ?? LibraryStore.defaultPath()
        if !create && !FileManager.default.fileExists(atPath: path) {
            throw UsageError("there is no library at \(path) (bookrule fetch creates it; check --library)")
        }
        return try LibraryStore(path: path)
    }

    /// The one book `query` names: its id, its URL, or part of its title.
    static func book(_ query: String, in store: LibraryStore) throws -> StoredBook {
        let matches = try store.findBooks(matching: query)
        guard let first = matches.first else {
            throw UsageError("no book in the library matches \"\(query)\" (see `bookrule library`)")
        }
        guard matches.count == 1 else {
            let list = matches.prefix(10).map { "#\($0.id) \($0.name)" }.joined(separator: ", ")
            throw UsageError("\"\(query)\" matches \(matches.count) books (\(list)); give the number")
        }
        return first
    }

    /// The book with every saved chapter, ready for an exporter; `missing` counts chapters not saved.
    static func exportBook(_ book: StoredBook, store: LibraryStore) throws -> (ExportBook, missing: Int) {
        var chapters: [ExportChapter] = []
        var missing = 0
        // The pictures of image sources' chapters, by the chapter identity in their names.
        let mediaDirectory = store.mediaDirectory(bookID: book.id)
        var mediaFiles: [String: [(number: String, name: String)]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: mediaDirectory)) ?? []
        where !name.hasSuffix(".part") && !name.hasSuffix(".part.json") {
            let parts = name.split(separator: "-", maxSplits: 2)
            guard parts.count == 3 else { continue }
            mediaFiles[String(parts[1]), default: []].append((String(parts[2]), name))
        }
        // Chapters the site no longer lists stay in the library but not in the book.
        for chapter in try store.chapters(bookID: book.id) where chapter.inTOC {
            if chapter.isVolume {
                chapters.append(ExportChapter(title: chapter.title, text: "", isVolume: true))
                continue
            }
            guard chapter.state == .done, let text = try store.text(bookID: book.id, url: chapter.url) else {
                missing += 1
                continue
            }
            let images = (mediaFiles[BookDownload.mediaIdentity(chapterURL: chapter.url)] ?? [])
                .sorted { $0.number < $1.number }
                .compactMap { ExportImage(path: mediaDirectory + "/" + $0.name) }
            // A picture chapter's stored text is its list of picture URLs: the pictures replace it.
            let onlyLinks = text.split(separator: "\n").allSatisfy { URLReference.isHTTP(String($0)) }
            chapters.append(ExportChapter(title: chapter.title, text: !images.isEmpty && onlyLinks ? "" : text,
                                          isVolume: false, images: images))
        }
        var cover: ExportCover?
        let path = store.coverPath(bookID: book.id)
        if let bytes = FileManager.default.contents(atPath: path) {
            // The exporter decides from the bytes whether the image can go into the book.
            let candidate = ExportCover(bytes: [UInt8](bytes), mediaType: "")
            if let type = candidate.epubMediaType { cover = ExportCover(bytes: [UInt8](bytes), mediaType: type) }
        }
        let export = ExportBook(title: book.name, author: book.author, intro: book.intro, language: "zh",
                                identifier: ExportBook.identifier(sourceURL: book.sourceURL, bookURL: book.url),
                                sourceURL: book.sourceURL, bookURL: book.url, cover: cover, chapters: chapters)
        return (export, missing)
    }

    /// Writes `book` as TXT or EPUB to `output` (a file, or a directory to put a file named after the title in;
    /// the current directory when nil) and returns the path written.
    static func write(_ book: ExportBook, epub: Bool, output: String?) throws -> String {
        let ext = epub ? "epub" : "txt"
        var isDirectory: ObjCBool = false
        let path: String
        if let output, !(output.hasSuffix("/") || (FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) && isDirectory.boolValue)) {
            path = output
        } else {
            let directory = output ?? FileManager.default.currentDirectoryPath
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
            path = try SafeFileName.path(in: directory, title: book.title, extension: ext)
        }
        if epub { try EPUBExporter.write(book, to: path) } else { try TXTExporter.write(book, to: path) }
        return path
    }
}

import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary
import Foundation

extension LegadoAPI {
    // MARK: - Bookshelf, chapters, content

    /// Every book with its progress, the most recently read first (Legado's default shelf order).
    func bookshelf() throws(ServeFailure) -> HTTPServerResponse {
        let store = library.store
        let (books, progress) = try library.library { () throws(LibraryError) in (try store.books(), try store.readingProgress()) }
        guard !books.isEmpty else { throw ServeFailure("还没有添加小说 (the library has no books)") }
        let types = sourceTypes()
        let entries = try books.map { (book) throws(ServeFailure) in
            let chapters = try library.tocChapters(book)
            return LegadoBook(book: book, progress: progress[book.id], tocLength: chapters.count,
                              latestChapterTitle: chapters.last(where: { !$0.isVolume })?.title,
                              type: LegadoBook.bookType(sourceType: types[book.sourceURL] ?? 0))
        }
        let sorted = entries.sorted {
            ($0.progress?.readAt ?? $0.book.createdAt) > ($1.progress?.readAt ?? $1.book.createdAt)
        }
        return LegadoEnvelope.success(LegadoJSON.array(sorted.map(\.json)))
    }

    /// `bookSourceType` of every kept source, by URL.
    private func sourceTypes() -> [String: Int] {
        var types: [String: Int] = [:]
        for record in (try? library.store.storedSources()) ?? [] {
            let object = try? JSONParser.parse(record.json).value.objectValue
            types[record.sourceURL] = object?["bookSourceType"]?.value.intValue ?? 0
        }
        return types
    }

    /// The book's TOC as saved (read from the site first when there is none yet, or always with `refresh`).
    func chapterList(_ request: HTTPServerRequest, refresh: Bool) throws(ServeFailure) -> HTTPServerResponse {
        let url = try argument(request, "url", "参数url不能为空，请指定书籍地址 (give the book's url)")
        let book = try library.book(url: url)
        var chapters = refresh ? [] : try library.tocChapters(book)
        if chapters.isEmpty {
            try library.refreshTOC(book)
            chapters = try library.tocChapters(book)
        }
        let base = book.tocURL.isEmpty ? book.url : book.tocURL
        return LegadoEnvelope.success(LegadoJSON.array(chapters.map {
            LegadoChapter(chapter: $0, bookURL: book.url, baseURL: base).json
        }))
    }

    /// One chapter's text, saved or fetched and saved, with the replace rules applied to what is served.
    func bookContent(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        if let saved = try savedBookContent(request) { return saved }
        let (url, index) = try chapterArguments(request)
        let book = try shelfBook(url: url)
        let text = try library.text(of: book, index: index)
        return LegadoEnvelope.success(.string(try library.served(text, of: book)))
    }

    /// A saved chapter's text, as `bookContent` answers it; nil when the chapter is not saved yet.
    func savedBookContent(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse? {
        let (url, index) = try chapterArguments(request)
        let book = try shelfBook(url: url)
        guard let text = try library.savedText(of: book, index: index) else { return nil }
        return LegadoEnvelope.success(.string(try library.served(text, of: book)))
    }

    /// The book a chapter is asked of; Legado answers `未找到` for one not on the shelf.
    private func shelfBook(url: String) throws(ServeFailure) -> StoredBook {
        do {
            return try library.book(url: url)
        } catch {
            throw ServeFailure("未找到 (no book \(url) in the library)")
        }
    }

    private func chapterArguments(_ request: HTTPServerRequest) throws(ServeFailure) -> (url: String, index: Int) {
        let url = try argument(request, "url", "参数url不能为空，请指定书籍地址 (give the book's url)")
        guard let index = request.argument("index").flatMap({ Int($0) }) else {
            throw ServeFailure("参数index不能为空, 请指定目录序号 (give the chapter's index)")
        }
        return (url, index)
    }

    // MARK: - Adding, removing, progress

    /// Adds a book a search found; one already on the shelf stays as it is.
    func saveBook(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        _ = try library.addBook(try objectBody(request))
        return LegadoEnvelope.success(.string(""))
    }

    /// Removes a book, with its chapters, texts and files.
    func deleteBook(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let object = try objectBody(request)
        guard let url = object["bookUrl"]?.value.stringValue else { throw ServeFailure("格式不对 (the book needs bookUrl)") }
        let book = try library.book(url: url, origin: object["origin"]?.value.stringValue)
        try library.library { () throws(LibraryError) in try library.store.removeBook(id: book.id) }
        return LegadoEnvelope.success(.string(""))
    }

    /// Records where the reader is (Legado's `BookProgress`: the book named by `name` and `author`).
    func saveProgress(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let object = try objectBody(request)
        guard let name = object["name"]?.value.stringValue, let index = object["durChapterIndex"]?.value.intValue else {
            throw ServeFailure("格式不对 (the progress needs name and durChapterIndex)")
        }
        let author = object["author"]?.value.stringValue ?? ""
        let books = try library.library { () throws(LibraryError) in try library.store.books() }
        guard let book = books.first(where: { $0.name == name && $0.author == author }) ?? books.first(where: { $0.name == name }) else {
            throw ServeFailure("格式不对 (no book \(name) by \(author) in the library)")
        }
        // Milliseconds since 1970; a time that is not a plausible one (infinite, past the year 33658) is now.
        let time = object["durChapterTime"]?.value.doubleValue.flatMap { $0.isFinite && abs($0) < 1e15 ? $0 : nil }
            .map { Date(timeIntervalSince1970: $0 / 1000) } ?? Date()
        // Legado's durChapterTitle is nullable: one not sent is kept as "", which the shelf leaves out as Gson does.
        let progress = ReadingProgress(chapterIndex: index, chapterPosition: object["durChapterPos"]?.value.intValue ?? 0,
                                       chapterTitle: object["durChapterTitle"]?.value.stringValue ?? "", readAt: time)
        try library.library { () throws(LibraryError) in try library.store.saveProgress(bookID: book.id, progress) }
        library.progressSaved.withLock { $0 }?(book.id)
        return LegadoEnvelope.success(.string(""))
    }

    // MARK: - Pictures

    /// A book's cover (`?path=` its cover URL) as Legado answers it: always a PNG, 84 by 112 (the picture scaled
    /// and cut around its centre), or the default cover when there is no picture to be had. A library book's
    /// cover is the one saved beside the library, fetched through the polite fetcher first when it is not saved
    /// yet; a `data:` URL is decoded. No other address is fetched: the server fetches nothing a request names.
    func cover(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        let url = request.argument("path") ?? ""
        if let bytes = ServedPicture.dataURLBytes(url) { return ServedPicture.cover(bytes) }
        let books = (try? library.library { () throws(LibraryError) in try library.store.books() }) ?? []
        guard !url.isEmpty, let book = books.first(where: { $0.coverURL == url }) else { return ServedPicture.cover(nil) }
        let store = library.store
        let path = store.coverPath(bookID: book.id)
        if !FileManager.default.fileExists(atPath: path), let fetch = try? library.fetch(sourceURL: book.sourceURL) {
            _ = try? library.bookWork("cover\n\(book.id)") {
                _ = await fetch.saveCover(of: book)
                return book.id
            }
        }
        return ServedPicture.cover(Self.pictureBytes(at: path))
    }

    /// A picture of a chapter's text (`?url=` the book, `?path=` the picture's URL, `?width=` the reader's width,
    /// 640 when none) as Legado answers it: a PNG, scaled down as Legado scales it, or Legado's loading-error
    /// picture when it cannot be had. The picture is the one `fetch` saved (not fetched on demand), or the
    /// bytes of a `data:` URL.
    func image(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        guard let bookURL = request.argument("url") else { throw ServeFailure("bookUrl为空 (give the book's url)") }
        guard let source = request.argument("path") else { throw ServeFailure("图片链接为空 (give the picture's path)") }
        let width = request.argument("width").flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil } ?? 640
        let book: StoredBook
        do {
            book = try library.book(url: bookURL)
        } catch {
            throw ServeFailure("bookUrl不对 (no book \(bookURL) in the library)")
        }
        let bytes = ServedPicture.dataURLBytes(source)
            ?? Self.pictureBytes(at: PictureFiles(store: library.store, bookID: book.id).path(for: source))
        return ServedPicture.picture(bytes, width: width)
    }

    /// The bytes of a saved picture file; nil when there is none (or it is larger than any picture kept).
    private static func pictureBytes(at path: String) -> [UInt8]? {
        try? LocalFile.readRegularFile(path, limit: 64 * 1024 * 1024)
    }

    // MARK: - Reading settings

    /// The web client's reading settings as it saved them (a JSON text, which the client parses).
    func readConfig() throws(ServeFailure) -> HTTPServerResponse {
        guard let bytes = try? LocalFile.read(readConfigPath) else { throw ServeFailure("没有配置 (no settings saved)") }
        return LegadoEnvelope.success(.string(String(decoding: bytes, as: UTF8.self)))
    }

    /// Keeps the web client's reading settings (any JSON), written atomically; an empty body forgets them, as
    /// Legado's `saveWebReadConfig` deletes its copy when there is no body.
    func saveReadConfig(_ request: HTTPServerRequest) throws(ServeFailure) -> HTTPServerResponse {
        guard postData(request) != nil else {
            if unlink(readConfigPath) != 0 && errno != ENOENT {
                throw ServeFailure("the settings cannot be forgotten: \(String(cString: strerror(errno)))")
            }
            return LegadoEnvelope.success(.string(""))
        }
        _ = try body(request)
        do {
            try LocalFile.writeAtomically(request.body, to: readConfigPath)
        } catch {
            throw ServeFailure("the settings cannot be saved: \(error)")
        }
        return LegadoEnvelope.success(.string(""))
    }
}

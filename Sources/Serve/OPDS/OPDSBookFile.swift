import BookRuleJSON
import BookRuleLibrary
import BookRuleLocking
import Foundation

/// A book's EPUB or TXT as the catalog serves it: the library's export (every saved chapter, the cover, the
/// replace rules applied as to served text), built on demand and kept in `opds-cache/` beside the library under
/// a name made of the book's id and a digest of what went into it, so a new chapter, an edited rule or a new
/// cover makes a new file while asking again for an unchanged book costs no export. The file is written
/// atomically (temporary file, fsync, rename); the book's older files are removed once the new one is in place.
struct OPDSBookFile: Sendable, Equatable {
    /// The file.
    var path: String
    /// Its size in bytes.
    var size: UInt64
    /// The digest of its content's parts (the entity tag's value).
    var digest: String
    /// When this content was first built (the file's modification time).
    var modified: Date
    /// EPUB or TXT.
    var format: ExportFormat

    /// Bumped when the exporters change what they write, so files built by an older bookrule are made again.
    static let version = "opds-1"

    /// The folder the files are kept in, beside the library at `libraryPath`.
    static func folder(libraryPath: String) -> String {
        LibraryStore.folder(ofLibraryAt: libraryPath) + "/opds-cache"
    }

    /// The file of `book` in `format`, built now when the library holds content the kept file does not have.
    /// `rules` are the replace rules to run over the text.
    ///
    /// What the export would read is stamped first without reading a chapter's text (`stamp`): when it is what
    /// it was for the file made last, that file is answered at once. An e-reader's HEAD and Range requests for
    /// one download then cost a read of the chapter rows, not an export of the whole book each.
    static func make(for book: StoredBook, format: ExportFormat, store: LibraryStore,
                     rules: ReplaceRuleSet) throws(OPDSError) -> OPDSBookFile {
        let key = MadeKey(library: store.path, bookID: book.id, format: format)
        // Taken before the export reads: a change in between makes the next stamp differ, never a stale answer.
        let stamp = try stamp(of: book, format: format, store: store, rules: rules)
        if let known = made.withLock({ $0[key] }), known.stamp == stamp,
           let file = kept(known.file.path, digest: known.file.digest, format: format) {
            return file
        }
        let file = try building.withLock { (_) throws(OPDSError) in
            try makeNow(for: book, format: format, store: store, rules: rules)
        }
        made.withLock { $0[key] = (stamp, file) }
        return file
    }

    /// Which file `made` remembers: a book of a library in a format.
    private struct MadeKey: Hashable {
        let library: String
        let bookID: Int64
        let format: ExportFormat
    }

    /// The file made or found last for each book and format, with the stamp of what it was made from.
    private static let made = Locked<[MadeKey: (stamp: String, file: OPDSBookFile)]>([:])

    /// How many times a file's content was worked out from the library's text (an export read), by library:
    /// what `stamp` saves, for tests.
    static let exportsRead = Locked<[String: Int]>([:])

    /// A digest of what the export of `book` reads, short of the chapters' text: the book's fields, every
    /// chapter's row (title, URL, state, place, when its text was saved and its length: a text is only ever
    /// written with a new time), the files of its media and picture folders and its cover (name, size, time),
    /// the replace rules and the format.
    static func stamp(of book: StoredBook, format: ExportFormat, store: LibraryStore,
                      rules: ReplaceRuleSet) throws(OPDSError) -> String {
        var hash = PartsHash()
        for field in [version, format.rawValue, book.name, book.author, book.intro, book.kind, book.coverURL,
                      book.sourceURL, book.url, "\(book.updatedAt.timeIntervalSince1970)"] {
            hash.add(field)
        }
        let chapters: [StoredChapter]
        do {
            chapters = try store.chapters(bookID: book.id)
        } catch {
            throw .library("\(error)")
        }
        for chapter in chapters {
            hash.add("\(chapter.position) \(chapter.inTOC) \(chapter.isVolume) \(chapter.state.rawValue) \(chapter.textLength) "
                + "\(chapter.fetchedAt?.timeIntervalSince1970 ?? -1)")
            hash.add(chapter.title)
            hash.add(chapter.url)
        }
        hash.addFiles(in: store.mediaDirectory(bookID: book.id))
        hash.addFiles(in: PictureFiles(store: store, bookID: book.id).directory)
        hash.addFile(store.coverPath(bookID: book.id))
        hash.add((try? JSONWriter.string(rules.rules)) ?? "rules")
        return hash.hex
    }

    /// Held while a file is looked for and built: two readers asking for a new book at once cause one export,
    /// and a build never removes, as older, the file another build has just made.
    private static let building = Locked<Void>(())

    private static func makeNow(for book: StoredBook, format: ExportFormat, store: LibraryStore,
                                rules: ReplaceRuleSet) throws(OPDSError) -> OPDSBookFile {
        exportsRead.withLock { $0[store.path, default: 0] += 1 }
        let export: LibraryExport
        do {
            export = try LibraryExport(book, store: store)
                .replaced(by: ReplaceRuleRun(rules.rules, bookName: book.name, sourceURL: book.sourceURL))
        } catch {
            throw .library("\(error)")
        }
        guard export.chapterCount > 0 else { throw .noSavedChapters(title: book.name) }
        let digest = digest(of: export.book, format: format)
        let folder = folder(libraryPath: store.path)
        let name = "\(book.id)-\(digest).\(format.fileExtension)"
        let path = folder + "/" + name
        if let kept = kept(path, digest: digest, format: format) { return kept }
        do {
            try LocalFile.makeDirectories(folder)
        } catch {
            throw .export("the folder \(folder) cannot be made: \(error)")
        }
        do {
            switch format {
            case .epub: try EPUBExporter.write(export.book, to: path)
            case .txt: try TXTExporter.write(export.book, to: path)
            }
        } catch {
            throw .export("\(error)")
        }
        // The book's older files, and those of books no longer in the library: nobody will ask for them again
        // (a download under way keeps its open file).
        for other in (try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? [] where other != name {
            let older = other.hasPrefix("\(book.id)-") && other.hasSuffix(".\(format.fileExtension)")
            guard older || isOrphan(other, store: store) else { continue }
            try? FileManager.default.removeItem(atPath: folder + "/" + other)
        }
        guard let made = kept(path, digest: digest, format: format) else {
            throw .export("\(path) was written but cannot be read")
        }
        return made
    }

    /// Whether the kept file `name` (`ID-DIGEST.EXT`) belongs to a book the library no longer has (removed; its
    /// id is never given again). A library that cannot be read removes nothing.
    private static func isOrphan(_ name: String, store: LibraryStore) -> Bool {
        guard let dash = name.firstIndex(of: "-"), let id = Int64(name[..<dash]) else { return false }
        do {
            return try store.book(id: id) == nil
        } catch {
            return false
        }
    }

    /// The file at `path` when it is there.
    private static func kept(_ path: String, digest: String, format: ExportFormat) -> OPDSBookFile? {
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, info.st_size > 0 else { return nil }
        let modified = Date(timeIntervalSince1970: Double(info.st_mtim.tv_sec))
        return OPDSBookFile(path: path, size: UInt64(info.st_size), digest: digest, modified: modified, format: format)
    }

    /// A digest of everything the exporter writes from: the format, the book's fields, its cover, and every
    /// chapter's title, text and pictures (their files by path and size).
    static func digest(of book: ExportBook, format: ExportFormat) -> String {
        var hash = PartsHash()
        for field in [version, format.rawValue, book.title, book.author, book.intro, book.language, book.identifier,
                      book.sourceURL, book.bookURL] {
            hash.add(field)
        }
        if let cover = book.cover {
            hash.add(cover.mediaType)
            hash.add(cover.bytes)
        }
        hash.add("chapters")
        for chapter in book.chapters {
            hash.add(chapter.isVolume ? "volume" : "chapter")
            hash.add(chapter.title)
            hash.add(chapter.text)
            for image in chapter.images { hash.addFile(image.path) }
            for (url, image) in chapter.pictures.sorted(by: { $0.key < $1.key }) {
                hash.add(url)
                hash.addFile(image.path)
            }
        }
        return String(hash.hex.prefix(32))
    }
}

/// A SHA-256 of parts told apart (each followed by a zero byte), files by path, size and time: what
/// `OPDSBookFile`'s digest and stamp are made of.
private struct PartsHash {
    private var hash = SHA256()

    mutating func add(_ text: String) {
        add(Array(text.utf8))
    }

    mutating func add(_ bytes: [UInt8]) {
        hash.update(bytes)
        hash.update([0])
    }

    /// The file at `path`: its path, size and modification time ("missing" when there is none).
    mutating func addFile(_ path: String) {
        var info = stat()
        add(path)
        add(stat(path, &info) == 0 ? "\(info.st_size):\(info.st_mtim.tv_sec).\(info.st_mtim.tv_nsec)" : "missing")
    }

    /// Every file of `directory`, by name.
    mutating func addFiles(in directory: String) {
        for name in ((try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []).sorted() {
            addFile(directory + "/" + name)
        }
        add("end")
    }

    /// The digest in lower-case hex.
    var hex: String { hash.hexDigest() }
}

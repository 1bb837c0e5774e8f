import Foundation
import BookRuleDocument

/// A saved book as an exporter takes it, built from the library exactly as `bookrule export` and
/// `bookrule fetch --epub` build it: the chapters the site still lists, in order, with their saved text (an
/// image source's pictures from its media folder in their place, a text chapter's pictures from the book's
/// `PictureFiles`), and the cover kept beside the library when it is a whole image.
public struct LibraryExport: Sendable {
    /// The book to write.
    public var book: ExportBook
    /// Chapters in the TOC not saved yet, left out of `book`.
    public var missing: Int
    /// What was left out and why (a damaged cover), for the user.
    public var warnings: [String]
    /// The pictures of the chapters' text that the library holds no file for (`PictureFetch` brings them),
    /// in reading order: an EPUB shows their URL instead (a TXT file always does).
    public var missingPictures: [String]

    /// The warning an EPUB export adds for `missingPictures`, nil when there are none.
    public var missingPicturesWarning: String? {
        guard !missingPictures.isEmpty else { return nil }
        let shown = missingPictures.prefix(5).joined(separator: ", ")
        let more = missingPictures.count > 5 ? " and \(missingPictures.count - 5) more" : ""
        return "\(missingPictures.count) picture(s) of the text are not in the library; the EPUB shows their URL: \(shown)\(more)"
    }

    /// Reads `stored` and its saved chapters from `store`.
    public init(_ stored: StoredBook, store: LibraryStore) throws(LibraryError) {
        var chapters: [ExportChapter] = []
        var missing = 0
        var warnings: [String] = []
        // The pictures of image sources' chapters, by the chapter identity in their names.
        let mediaDirectory = store.mediaDirectory(bookID: stored.id)
        var mediaFiles: [String: [(number: Int, name: String)]] = [:]
        for name in (try? FileManager.default.contentsOfDirectory(atPath: mediaDirectory)) ?? [] {
            guard let parsed = MediaFileName(parsing: name) else { continue }
            mediaFiles[parsed.identity, default: []].append((parsed.fileNumber, name))
        }
        let pictureFiles = PictureFiles(store: store, bookID: stored.id)
        var missingPictures: Set<String> = []
        var missingPictureList: [String] = []
        // Chapters the site no longer lists stay in the library but not in the book.
        for chapter in try store.chapters(bookID: stored.id) where chapter.inTOC {
            if chapter.isVolume {
                chapters.append(ExportChapter(title: chapter.title, text: "", isVolume: true))
                continue
            }
            guard chapter.state == .done, let text = try store.text(bookID: stored.id, url: chapter.url) else {
                missing += 1
                continue
            }
            let images = (mediaFiles[MediaFileName.identity(chapterURL: chapter.url)] ?? [])
                .sorted { $0.number < $1.number }
                .compactMap { ExportImage(path: mediaDirectory + "/" + $0.name) }
            // A picture chapter's stored text is its list of picture URLs: the pictures replace it.
            let onlyLinks = text.split(separator: "\n").allSatisfy { URLReference.isHTTP(String($0)) }
            // A text chapter's pictures, from the book's picture folder (`PictureFetch` fills it).
            var kept: [String: ExportImage] = [:]
            for line in ImageLine.all(in: text) where kept[line.url] == nil {
                if let image = pictureFiles.image(for: line.url) {
                    kept[line.url] = image
                } else if missingPictures.insert(line.url).inserted {
                    missingPictureList.append(line.url)
                }
            }
            chapters.append(ExportChapter(title: chapter.title, text: !images.isEmpty && onlyLinks ? "" : text,
                                          isVolume: false, images: images, pictures: kept))
        }
        self.missingPictures = missingPictureList
        var cover: ExportCover?
        if let bytes = FileManager.default.contents(atPath: store.coverPath(bookID: stored.id)) {
            let candidate = ExportCover(bytes: [UInt8](bytes))
            if let type = candidate.epubMediaType {
                cover = ExportCover(bytes: candidate.bytes, mediaType: type)
            } else if let problem = candidate.problem {
                warnings.append(CoverError.notAnImage(url: stored.coverURL, problem: problem.description).description)
            }
        }
        book = ExportBook(title: stored.name, author: stored.author, intro: stored.intro, language: "zh",
                          identifier: ExportBook.identifier(sourceURL: stored.sourceURL, bookURL: stored.url),
                          sourceURL: stored.sourceURL, bookURL: stored.url, cover: cover, chapters: chapters)
        self.missing = missing
        self.warnings = warnings
    }

    /// The chapters (not volume headings) the export holds.
    public var chapterCount: Int { book.chapters.filter { !$0.isVolume }.count }

    /// Writes the book as `format` to `output` (a file, or a directory, existing or ending in `/`, to put a
    /// file named after the title in; `directory` when nil) and returns the path written.
    @discardableResult
    public func write(_ format: ExportFormat, to output: String?,
                      directory: String = FileManager.default.currentDirectoryPath) throws(ExportError) -> String {
        var isDirectory: ObjCBool = false
        let path: String
        if let output, !(output.hasSuffix("/")
                         || (FileManager.default.fileExists(atPath: output, isDirectory: &isDirectory) && isDirectory.boolValue)) {
            path = output
        } else {
            let folder = output ?? directory
            do {
                try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            } catch {
                throw .unusableDirectory(path: folder, reason: "\(error.localizedDescription)")
            }
            path = try SafeFileName.path(in: folder, title: book.title, extension: format.fileExtension)
        }
        switch format {
        case .epub: try EPUBExporter.write(book, to: path)
        case .txt: try TXTExporter.write(book, to: path)
        }
        return path
    }
}

import BookRuleDocument

/// Where the pictures of a book's text chapters (its `ImageLine`s) are kept, keyed by their URL so that a
/// picture is fetched once, whatever chapter or export asks for it again:
/// `<media directory of the book>/pictures/<first 16 hex digits of the SHA-256 of the URL>[.<extension>]`,
/// the extension taken from the URL for people looking at the folder (what the file is, is read from its bytes).
/// The folder goes with the book (`LibraryStore.removeBook` deletes the media directory).
public struct PictureFiles: Sendable {
    /// The folder.
    public let directory: String

    /// The picture folder of book `bookID` in `store`.
    public init(store: LibraryStore, bookID: Int64) {
        directory = store.mediaDirectory(bookID: bookID) + "/pictures"
    }

    /// The file the picture at `url` is kept in (it may not exist yet).
    public func path(for url: String) -> String {
        var hash = SHA256()
        hash.update(Array(url.utf8))
        let name = MediaFileName.make(forURL: url)
        let suffix = name.lastIndex(of: ".").map { String(name[$0...]).lowercased() } ?? ""
        return directory + "/" + String(hash.hexDigest().prefix(16)) + suffix
    }

    /// The kept picture at `url`, nil when it is not there or is not a whole JPEG, PNG or GIF.
    public func image(for url: String) -> ExportImage? {
        ExportImage(path: path(for: url))
    }
}

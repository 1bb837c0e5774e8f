/// The media types of the catalog's links and answers (OPDS 1.2, section 2: catalog documents are Atom with the
/// `profile=opds-catalog` parameter, and say whether they are navigation or acquisition feeds).
enum OPDSMediaType {
    /// A navigation feed: entries that lead to other feeds.
    static let navigation = "application/atom+xml;profile=opds-catalog;kind=navigation"
    /// An acquisition feed: entries that are books, with links to their files.
    static let acquisition = "application/atom+xml;profile=opds-catalog;kind=acquisition"
    /// A lone entry document (a book's complete entry).
    static let entry = "application/atom+xml;type=entry;profile=opds-catalog"
    /// An OpenSearch description document.
    static let openSearch = "application/opensearchdescription+xml"
    /// An EPUB.
    static let epub = "application/epub+zip"
    /// A plain-text book.
    static let text = "text/plain"

    /// The link relation of a file that gets the book (OPDS 1.2, 5.2).
    static let acquisitionRelation = "http://opds-spec.org/acquisition"
    /// The link relation of a book's cover.
    static let imageRelation = "http://opds-spec.org/image"
    /// The link relation of a book's small cover.
    static let thumbnailRelation = "http://opds-spec.org/image/thumbnail"
}

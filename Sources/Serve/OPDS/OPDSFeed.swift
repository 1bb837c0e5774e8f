import Foundation

/// One catalog feed (an Atom feed, RFC 4287, with OPDS 1.2's links): its identity, its links (`self`, `start`,
/// `up`, paging, search) and its entries, written as one UTF-8 XML document.
struct OPDSFeed: Sendable {
    /// A navigation feed (ways on) or an acquisition feed (books).
    enum Kind: Sendable {
        /// Entries lead to other feeds.
        case navigation
        /// Entries are books.
        case acquisition

        /// The feed's media type.
        var mediaType: String {
            switch self {
            case .navigation: OPDSMediaType.navigation
            case .acquisition: OPDSMediaType.acquisition
            }
        }
    }

    /// Where a paged feed stands: OpenSearch's response elements.
    struct Paging: Sendable, Equatable {
        /// Entries in the whole list.
        var total: Int
        /// Entries per page.
        var perPage: Int
        /// The first entry's place in the list, from 1.
        var startIndex: Int
    }

    /// A URI that names the feed and never changes.
    var id: String
    /// The title shown.
    var title: String
    /// Navigation or acquisition.
    var kind: Kind
    /// When the feed last changed (its newest entry).
    var updated: Date
    /// The feed's links.
    var links: [OPDSLink]
    /// The entries, in order.
    var entries: [OPDSEntry]
    /// The page's place in the list, for a paged feed.
    var paging: Paging?

    /// The feed as XML bytes; links into the catalog carry `token` when one is given.
    func xml(token: String? = nil) -> [UInt8] {
        var text = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<feed \(OPDSXML.namespaces)>\n"
        text += "  " + OPDSXML.element("id", id) + "\n"
        text += "  " + OPDSXML.element("title", title) + "\n"
        text += "  " + OPDSXML.element("updated", OPDSXML.date(updated)) + "\n"
        // Entries without an author (a book whose site names none, every navigation entry) take the feed's.
        text += "  <author><name>bookrule</name></author>\n"
        if let paging {
            text += "  <opensearch:totalResults>\(paging.total)</opensearch:totalResults>\n"
            text += "  <opensearch:itemsPerPage>\(paging.perPage)</opensearch:itemsPerPage>\n"
            text += "  <opensearch:startIndex>\(paging.startIndex)</opensearch:startIndex>\n"
        }
        for link in links { text += "  " + link.xml(token: token) + "\n" }
        for entry in entries { text += entry.xml(token: token) }
        text += "</feed>\n"
        return Array(text.utf8)
    }
}

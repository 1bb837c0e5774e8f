import Foundation

/// One `atom:entry` of the catalog: a book (in an acquisition feed) or a way on (in a navigation feed).
struct OPDSEntry: Sendable, Equatable {
    /// A URI that names the entry and never changes (`urn:bookrule:book:ID` for a book).
    var id: String
    /// The title shown.
    var title: String
    /// When the entry last changed meaningfully (a book: its last saved chapter).
    var updated: Date
    /// The authors' names (none: the feed's author stands for them).
    var authors: [String] = []
    /// A short plain-text description (a book's intro, and what it lacks).
    var summary: String?
    /// Plain-text content (a navigation entry's description).
    var content: String?
    /// Category terms (a book's kinds).
    var categories: [String] = []
    /// Where it leads: feeds, files, pictures.
    var links: [OPDSLink] = []

    /// The entry as an Atom element; `root` adds the namespaces, for a lone entry document; links into the
    /// catalog carry `token` when one is given.
    func xml(root: Bool = false, token: String? = nil) -> String {
        var text = root ? "<entry \(OPDSXML.namespaces)>\n" : "<entry>\n"
        text += "  " + OPDSXML.element("id", id) + "\n"
        text += "  " + OPDSXML.element("title", title) + "\n"
        text += "  " + OPDSXML.element("updated", OPDSXML.date(updated)) + "\n"
        for author in authors where !author.isEmpty {
            text += "  <author>" + OPDSXML.element("name", author) + "</author>\n"
        }
        for category in categories {
            let term = OPDSXML.escaped(category)
            text += "  <category term=\"\(term)\" label=\"\(term)\"/>\n"
        }
        if let summary, !summary.isEmpty { text += "  <summary type=\"text\">\(OPDSXML.escaped(summary))</summary>\n" }
        if let content, !content.isEmpty { text += "  <content type=\"text\">\(OPDSXML.escaped(content))</content>\n" }
        for link in links { text += "  " + link.xml(token: token) + "\n" }
        return text + "</entry>\n"
    }
}

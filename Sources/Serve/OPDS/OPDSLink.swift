/// One `atom:link` of a feed or entry: where it leads (`href`, a path on this server or a whole URL), what it
/// is to the document (`rel`) and what it answers (`type`).
struct OPDSLink: Sendable, Equatable {
    /// The relation (`self`, `start`, `next`, `http://opds-spec.org/acquisition`, …).
    var rel: String
    /// The target.
    var href: String
    /// The target's media type.
    var type: String
    /// A title a client may show for the link.
    var title: String?

    /// A link to `href` of `type`, related as `rel`.
    init(rel: String, href: String, type: String, title: String? = nil) {
        self.rel = rel
        self.href = href
        self.type = type
        self.title = title
    }

    /// The link as an Atom element, escaped; a link into the catalog carries `token` when one is given.
    func xml(token: String?) -> String {
        let target = OPDSXML.carrying(href, token: token)
        var text = "<link rel=\"\(OPDSXML.escaped(rel))\" href=\"\(OPDSXML.escaped(target))\" type=\"\(OPDSXML.escaped(type))\""
        if let title { text += " title=\"\(OPDSXML.escaped(title))\"" }
        return text + "/>"
    }
}

import BookRuleDocument
import Foundation

/// The small pieces every catalog document is written with: escaped text, Atom's dates, and query values.
enum OPDSXML {
    /// The namespaces a catalog document declares on its root: Atom (the default), OPDS, OpenSearch's
    /// response elements (paging) and Dublin Core terms.
    static let namespaces = "xmlns=\"http://www.w3.org/2005/Atom\" xmlns:opds=\"http://opds-spec.org/2010/catalog\" "
        + "xmlns:opensearch=\"http://a9.com/-/spec/opensearch/1.1/\" xmlns:dc=\"http://purl.org/dc/terms/\""

    /// `text` safe as XML content and attribute value (`XMLText`: escaped, characters XML forbids dropped).
    static func escaped(_ text: String) -> String {
        XMLText.escaped(text)
    }

    /// An element `name` holding `text`, escaped.
    static func element(_ name: String, _ text: String) -> String {
        "<\(name)>\(escaped(text))</\(name)>"
    }

    /// `date` as Atom writes dates (RFC 3339, UTC, whole seconds).
    static func date(_ date: Date) -> String {
        date.formatted(Date.ISO8601FormatStyle(timeZone: TimeZone(identifier: "UTC") ?? .current))
    }

    /// `href` with `?token=` (or `&token=`) added when it leads into the catalog and a token is given: a reader
    /// that sends no Basic credentials and keeps no cookie was given the catalog's address with `?token=`, and
    /// every link it follows must carry it on.
    static func carrying(_ href: String, token: String?) -> String {
        guard let token, href == "/opds" || href.hasPrefix("/opds/") || href.hasPrefix("/opds?") else { return href }
        return href + (href.contains("?") ? "&" : "?") + "token=" + queryValue(token)
    }

    /// The characters a query value keeps unencoded: RFC 3986's unreserved ones.
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    /// `value` percent-encoded for a query (UTF-8; everything but the unreserved characters).
    static func queryValue(_ value: String) -> String {
        value.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}

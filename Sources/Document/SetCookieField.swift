/// One `Set-Cookie` field value read as RFC 6265 section 5.2 says: the `name=value` pair before the first `;`,
/// then the attributes. The one place bookrule reads `Set-Cookie`: the HTTP layer's `CookieStore` keeps cookies
/// from it and the script runtime's `cookies()` reports them from it, so they never disagree.
package struct SetCookieField: Sendable, Equatable {
    /// The cookie's name, trimmed.
    package var name: String
    /// The cookie's value, trimmed (quotes, if any, kept: they are part of the value).
    package var value: String
    /// The attributes in field order: names lowercased, values trimmed ("" for a flag such as `Secure`).
    package var attributes: [(name: String, value: String)]

    /// The field read from `text`; nil when it has no `=` before the first `;` or an empty name, which
    /// RFC 6265 says to ignore. Commas are not separators: one field is one cookie (`Expires` holds a comma).
    package init?(_ text: String) {
        let parts = text.split(separator: ";", omittingEmptySubsequences: false)
        guard let first = parts.first, let equals = first.firstIndex(of: "=") else { return nil }
        name = first[..<equals].trimmingASCIIWhitespace()
        guard !name.isEmpty else { return nil }
        value = first[first.index(after: equals)...].trimmingASCIIWhitespace()
        attributes = parts.dropFirst().compactMap { attribute in
            let pair = attribute.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let key = pair.first.map { $0.trimmingASCIIWhitespace().lowercased() } ?? ""
            guard !key.isEmpty else { return nil }
            return (key, pair.count > 1 ? pair[1].trimmingASCIIWhitespace() : "")
        }
    }

    package static func == (left: SetCookieField, right: SetCookieField) -> Bool {
        left.name == right.name && left.value == right.value
            && left.attributes.map(\.name) == right.attributes.map(\.name)
            && left.attributes.map(\.value) == right.attributes.map(\.value)
    }
}

import BookRuleDocument

/// One sort (分类) of an RSS source: a named article list, from `sortUrl`'s `name::url` entries.
public struct RssSort: Sendable, Equatable, Codable {
    /// What the sort is called (empty for the one sort of a source without `sortUrl`).
    public var name: String
    /// The list's URL template: absolute, or a `{{…}}` template kept as written (resolved when fetched), with
    /// Legado's `,{options}` and `{{page}}`.
    public var url: String

    /// Creates a sort.
    public init(name: String, url: String) {
        self.name = name
        self.url = url
    }

    /// The sorts `text` lists, as Legado's `RssSource.sortUrls()` reads them: entries separated by runs of `&&`
    /// and line breaks, each `name::url` (split at the first `::`); an entry without a URL is skipped; a URL is
    /// resolved against `sourceURL` unless it starts with `{{`. No entry at all (empty or absent text): the
    /// one sort `("", sourceURL)`.
    public static func parse(_ text: String?, sourceURL: String) -> [RssSort] {
        var sorts: [RssSort] = []
        for entry in ExploreCategory.splitEntries(text ?? "") {
            guard let separator = entry.range(of: "::") else { continue }
            let name = String(entry[..<separator.lowerBound]).trimmingASCIIWhitespace()
            let url = String(entry[separator.upperBound...]).trimmingASCIIWhitespace()
            if url.isEmpty { continue }
            if url.hasPrefix("{{") {
                sorts.append(RssSort(name: name, url: url))
            } else {
                sorts.append(RssSort(name: name, url: URLReference.resolve(url, against: sourceURL) ?? url))
            }
        }
        if sorts.isEmpty { sorts.append(RssSort(name: "", url: sourceURL)) }
        return sorts
    }

    /// The JavaScript of a `sortUrl` written as a script (`@js:code` or `<js>code</js>`, prefixes as Legado
    /// tests them: case-sensitive, the code ending at the last `<`), or nil for text.
    public static func scriptCode(_ text: String) -> String? {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.hasPrefix("@js:") { return String(trimmed.dropFirst(4)) }
        if trimmed.hasPrefix("<js>") {
            let body = trimmed.dropFirst(4)
            guard let end = body.lastIndex(of: "<") else { return String(body) }
            return String(body[..<end])
        }
        return nil
    }
}

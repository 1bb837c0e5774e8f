import Foundation
import BookRuleDocument

/// The parts of CSS that say which web font draws which elements: `@font-face` rules (family and sources) and
/// style rules (selector and declarations), with those inside `@media`/`@supports` read as if at the top.
/// Not a CSS engine: specificity, the cascade and inheritance overrides are not modelled; a family named by a
/// rule is taken to draw the elements it selects and their descendants.
struct StyleSheet {
    /// A rule: its selector (or at-keyword prelude) and its declarations' text.
    struct Rule {
        var selector: String
        var body: String
    }

    /// A font a sheet loads with `@font-face`.
    struct FontFace: Equatable {
        /// Its `font-family`.
        var family: String
        /// Its `src` URLs in order, resolved against the sheet's URL (`data:` URLs as they are).
        var sources: [String]
    }

    var rules: [Rule]
    /// Bounds on what one sheet may ask for: hostile CSS could name thousands of fonts or sources.
    static let facesPerSheet = 16
    static let sourcesPerFace = 8
    /// What relative URLs in the sheet resolve against: the stylesheet's own URL, or the page's base URL.
    var baseURL: String

    init(css: String, baseURL: String) {
        self.baseURL = baseURL
        rules = Self.rules(in: Self.withoutComments(css))
    }

    /// The `@font-face` fonts the sheet declares (one per family, the first declaration's sources first).
    var fontFaces: [FontFace] {
        var faces: [FontFace] = []
        for rule in rules where rule.selector.lowercased().hasPrefix("@font-face") {
            guard let family = Self.declaration("font-family", in: rule.body).flatMap({ Self.families(in: $0).first })
            else { continue }
            let sources = Self.declaration("src", in: rule.body).map(Self.urls) ?? []
            let resolved = sources.map { $0.hasPrefix("data:") ? $0 : (URLReference.resolve($0, against: baseURL) ?? $0) }
            if let index = faces.firstIndex(where: { $0.family.lowercased() == family.lowercased() }) {
                if faces[index].sources.count < Self.sourcesPerFace { faces[index].sources += resolved }
            } else if faces.count < Self.facesPerSheet {
                faces.append(FontFace(family: family, sources: resolved))
            }
        }
        return faces
    }

    /// The style rules (not at-rules) whose `font-family` or `font` declaration names one of `families`
    /// (compared without case), with the family named.
    func rules(naming families: [String]) -> [(selector: String, family: String)] {
        var found: [(selector: String, family: String)] = []
        for rule in rules where !rule.selector.hasPrefix("@") {
            if let family = Self.family(namedIn: rule.body, among: families) { found.append((rule.selector, family)) }
        }
        return found
    }

    /// The one of `families` that a `font-family` or `font` declaration in `body` (a rule's or a `style`
    /// attribute's) names first.
    static func family(namedIn body: String, among families: [String]) -> String? {
        let named = (declaration("font-family", in: body) ?? declaration("font", in: body)).map(Self.families) ?? []
        for name in named {
            if let family = families.first(where: { $0.lowercased() == name.lowercased() }) { return family }
        }
        return nil
    }

    // MARK: - Reading

    /// The rules of `css`, group rules (`@media`, `@supports`) flattened; `@import` preludes kept as rules with
    /// an empty body so their URL can be read.
    private static func rules(in css: String) -> [Rule] {
        var rules: [Rule] = []
        var prelude = ""
        var index = css.startIndex
        while index < css.endIndex {
            let character = css[index]
            index = css.index(after: index)
            switch character {
            case "{":
                let selector = prelude.trimmingCharacters(in: .whitespacesAndNewlines)
                prelude = ""
                let lowered = selector.lowercased()
                if lowered.hasPrefix("@") && !lowered.hasPrefix("@font-face") && !lowered.hasPrefix("@page") {
                    continue  // a group rule: its rules follow as if at the top
                }
                let end = css[index...].firstIndex(of: "}") ?? css.endIndex
                rules.append(Rule(selector: selector, body: String(css[index..<end])))
                index = end < css.endIndex ? css.index(after: end) : end
            case ";":
                let statement = prelude.trimmingCharacters(in: .whitespacesAndNewlines)
                if statement.lowercased().hasPrefix("@import") { rules.append(Rule(selector: statement, body: "")) }
                prelude = ""
            case "}":
                prelude = ""
            default:
                prelude.append(character)
            }
        }
        return rules
    }

    /// The URLs of the sheet's `@import` rules, resolved.
    var imports: [String] {
        rules.filter { $0.selector.lowercased().hasPrefix("@import") }.compactMap { rule in
            let text = String(rule.selector.dropFirst("@import".count))
            let url = Self.urls(in: text).first ?? text.trimmingCharacters(in: CharacterSet(charactersIn: " \"'")).split(separator: " ").first.map(String.init)
            return url.flatMap { URLReference.resolve($0, against: baseURL) }
        }
    }

    /// `css` with its `/* … */` comments dropped, an unterminated one to the end, in one forward pass: a style
    /// of a million comments must not be rescanned once per comment.
    static func withoutComments(_ css: String) -> String {
        let bytes = Array(css.utf8)
        var kept: [UInt8] = []
        kept.reserveCapacity(bytes.count)
        var index = 0
        var inComment = false
        while index < bytes.count {
            let pair = index + 1 < bytes.count ? (bytes[index], bytes[index + 1]) : (bytes[index], 0)
            if inComment {
                if pair == (UInt8(ascii: "*"), UInt8(ascii: "/")) {
                    inComment = false
                    index += 2
                } else {
                    index += 1
                }
            } else if pair == (UInt8(ascii: "/"), UInt8(ascii: "*")) {
                inComment = true
                index += 2
            } else {
                kept.append(bytes[index])
                index += 1
            }
        }
        // Both delimiters are ASCII, so no multi-byte character is split.
        return String(decoding: kept, as: UTF8.self)
    }

    /// The value of the last `name:` declaration in `body`. One forward scan: a `;` inside quotes or brackets
    /// (a `data:` URL's `data:font/woff2;base64,`) does not end a declaration, and hostile CSS of a million `;`
    /// costs one pass.
    static func declaration(_ name: String, in body: String) -> String? {
        var value: String?
        var depth = 0
        var quote: Character?
        var start = body.startIndex
        func take(_ end: String.Index) {
            let item = body[start..<end]
            guard let colon = item.firstIndex(of: ":") else { return }
            if item[..<colon].trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == name {
                value = item[item.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        var index = body.startIndex
        while index < body.endIndex {
            let character = body[index]
            if let open = quote {
                if character == open { quote = nil }
            } else if character == "\"" || character == "'" {
                quote = character
            } else if character == "(" {
                depth += 1
            } else if character == ")" {
                depth = max(0, depth - 1)
            } else if character == ";" && depth == 0 {
                take(index)
                start = body.index(after: index)
            }
            index = body.index(after: index)
        }
        take(body.endIndex)
        return value
    }

    /// The family names in a `font-family` (or the end of a `font`) value, unquoted.
    static func families(in value: String) -> [String] {
        value.split(separator: ",").map { piece in
            var name = piece.trimmingCharacters(in: .whitespacesAndNewlines)
            name = name.replacingOccurrences(of: "!important", with: "").trimmingCharacters(in: .whitespaces)
            // `font: 16px/1.5 "Read"`: the family is the last word when unquoted, the quoted text otherwise.
            if let quote = name.first(where: { $0 == "\"" || $0 == "'" }),
               let start = name.firstIndex(of: quote), let end = name.lastIndex(of: quote), start < end {
                return String(name[name.index(after: start)..<end])
            }
            return name.split(separator: " ").last.map(String.init) ?? name
        }.filter { !$0.isEmpty }
    }

    /// Every `url(…)` in `value`, unquoted, in order.
    static func urls(in value: String) -> [String] {
        var found: [String] = []
        var rest = Substring(value)
        while let open = rest.range(of: "url(", options: .caseInsensitive) {
            let after = rest[open.upperBound...]
            guard let close = after.firstIndex(of: ")") else { break }
            let url = after[..<close].trimmingCharacters(in: CharacterSet(charactersIn: "\"' \n\t"))
            if !url.isEmpty { found.append(url) }
            rest = after[after.index(after: close)...]
        }
        return found
    }
}

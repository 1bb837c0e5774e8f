import Foundation
import BookRuleDocument

/// Chapter text a site hides from scrapers behind a web font, found so the reader is told instead of getting
/// garbled text silently.
///
/// Two tricks: characters from Unicode's Private Use Areas, which only the site's font draws as letters; and
/// ordinary characters shuffled, which the site's font (`@font-face`, as qidian and bilinovel load it) draws as
/// other letters. The first shows in the text; the second only in the page's CSS, so a font counts when a
/// `font-family` rule or `style` attribute naming it covers an element holding (or held by) the content.
package enum ObfuscatedText {
    /// A font a page loads with `@font-face`.
    struct WebFont: Equatable {
        /// Its `font-family`.
        var family: String
        /// Its first `src: url(…)`, if any.
        var url: String?

        var description: String { "\"\(family)\"" + (url.map { " (\($0))" } ?? "") }
    }

    /// What the pages of one chapter showed so far: the fonts they load and those drawing the content.
    struct Findings {
        private(set) var fonts: [WebFont] = []
        private(set) var drawing: [WebFont] = []

        /// Notes the fonts of one page, whose content rule read `content`.
        mutating func read(_ document: HTMLDocument, content: () -> [String]) {
            let declared = ObfuscatedText.declaredFonts(in: document)
            guard !declared.isEmpty else { return }
            fonts += declared.filter { !fonts.contains($0) }
            drawing += ObfuscatedText.fonts(drawing: content(), in: document, declared: declared).filter { !drawing.contains($0) }
        }

        /// The warnings for the chapter's whole `text`.
        func warnings(text: String, field: String) -> [String] {
            ObfuscatedText.warnings(text: text, fonts: fonts, drawing: drawing, field: field)
        }
    }

    private static let privateUsePhrase = "are Private Use Area characters"
    private static let webFontPhrase = "is drawn with the web font"

    /// Whether `warning` (one of a chapter's warnings) is one of these.
    package static func isWarning(_ warning: String) -> Bool {
        warning.contains(privateUsePhrase) || warning.contains(webFontPhrase)
    }

    /// The share of Private Use Area characters among the letters above which the text counts as obfuscated.
    static let privateUseShare = 0.3
    /// At most this many elements are compared with the content per font-family rule.
    private static let elementLimit = 200

    /// Warnings for the content of one chapter: `text` is the whole chapter, `fonts` what its pages load and
    /// `drawing` the fonts applied to the content (see `fonts(drawing:in:declared:)`).
    static func warnings(text: String, fonts: [WebFont], drawing: [WebFont], field: String) -> [String] {
        var privateUse = 0
        var letters = 0
        for scalar in text.unicodeScalars {
            if isPrivateUse(scalar) {
                privateUse += 1
            } else if scalar.properties.isAlphabetic || scalar.properties.numericType != nil {
                letters += 1
            }
        }
        let share = Double(privateUse) / Double(max(1, privateUse + letters))
        if privateUse >= 5, share >= privateUseShare {
            let percent = Int((share * 100).rounded())
            let drawer = fonts.isEmpty
                ? "which only a web font the site loads can draw"
                : "which only the page's web font " + fonts.map(\.description).joined(separator: ", ") + " draws"
            return ["\(field): \(percent)% of the chapter's letters \(privateUsePhrase) (U+E000–U+F8FF, "
                + "planes 15–16), \(drawer): the text is obfuscated and reads as it is only with that font"]
        }
        return drawing.map { font in
            "\(field): the chapter text \(webFontPhrase) \(font.description) the page loads with "
                + "@font-face; such fonts often show other letters than the characters the page holds, so the text "
                + "may be scrambled"
        }
    }

    static func isPrivateUse(_ scalar: Unicode.Scalar) -> Bool {
        (0xE000...0xF8FF).contains(scalar.value) || scalar.value >= 0xF0000
    }

    // MARK: - Fonts

    /// The `@font-face` fonts of the page's `<style>` blocks.
    static func declaredFonts(in document: HTMLDocument) -> [WebFont] {
        // Most pages have no web font: a walk for `<style>` and a look at its text settle that.
        guard elements("//style/text()", in: document).contains(where: { $0.stringValue.lowercased().contains("@font-face") })
        else { return [] }
        var fonts: [WebFont] = []
        for rule in styleRules(in: document) where rule.selector.lowercased().hasPrefix("@font-face") {
            guard let family = declaration("font-family", in: rule.body).flatMap({ families(in: $0).first }) else { continue }
            let font = WebFont(family: family, url: declaration("src", in: rule.body).flatMap(firstURL))
            if !fonts.contains(where: { $0.family.lowercased() == family.lowercased() }) { fonts.append(font) }
        }
        return fonts
    }

    /// Those of `declared` that a rule or `style` attribute of the page applies to an element whose text overlaps
    /// `content` (the text the content rule read from this page).
    static func fonts(drawing content: [String], in document: HTMLDocument, declared: [WebFont]) -> [WebFont] {
        guard !declared.isEmpty else { return [] }
        let contentText = squeezed(content.joined())
        guard !contentText.isEmpty else { return [] }
        var paths: [(font: WebFont, xpath: String)] = []
        for rule in styleRules(in: document) where !rule.selector.hasPrefix("@") {
            guard let font = font(namedIn: rule.body, declared: declared) else { continue }
            for selector in rule.selector.split(separator: ",") {
                if let xpath = xpath(forSelector: String(selector)) { paths.append((font, xpath)) }
            }
        }
        var drawing: [WebFont] = []
        for (font, xpath) in paths where !drawing.contains(font) {
            if elements(xpath, in: document).contains(where: { overlap(squeezed($0.stringValue), contentText) }) {
                drawing.append(font)
            }
        }
        for node in elements("//*[@style]", in: document) {
            guard let style = node.attribute("style"), let font = font(namedIn: style, declared: declared),
                  !drawing.contains(font), overlap(squeezed(node.stringValue), contentText) else { continue }
            drawing.append(font)
        }
        return drawing
    }

    /// The first `elementLimit` elements `xpath` selects on the page.
    private static func elements(_ xpath: String, in document: HTMLDocument) -> ArraySlice<HTMLNode> {
        guard let expression = try? XPathExpression(xpath),
              case .nodes(let nodes)? = try? expression.evaluate(at: document.root) else { return [] }
        return nodes.prefix(elementLimit)
    }

    /// Whether an element's text and the content share a stretch: one starts with text found in the other.
    private static func overlap(_ element: String, _ content: String) -> Bool {
        guard element.count >= 4 else { return false }
        return content.contains(String(element.prefix(12))) || element.contains(String(content.prefix(12)))
    }

    private static func squeezed(_ text: String) -> String {
        String(text.unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init))
    }

    /// The one of `declared` named by a `font-family` or `font` declaration in `body`.
    private static func font(namedIn body: String, declared: [WebFont]) -> WebFont? {
        let named = (declaration("font-family", in: body) ?? declaration("font", in: body)).map(families) ?? []
        let lowered = Set(named.map { $0.lowercased() })
        return declared.first { lowered.contains($0.family.lowercased()) }
    }

    // MARK: - CSS reading

    private struct StyleRule {
        var selector: String
        var body: String
    }

    /// The rules of every `<style>` block, comments dropped, with those inside `@media`/`@supports` flattened.
    private static func styleRules(in document: HTMLDocument) -> [StyleRule] {
        var rules: [StyleRule] = []
        for node in elements("//style/text()", in: document) {
            let css = withoutComments(node.stringValue)
            var prelude = ""
            var index = css.startIndex
            while index < css.endIndex {
                let character = css[index]
                index = css.index(after: index)
                switch character {
                case "{":
                    let selector = prelude.trimmingASCIIWhitespace()
                    prelude = ""
                    let lowered = selector.lowercased()
                    if lowered.hasPrefix("@") && !lowered.hasPrefix("@font-face") && !lowered.hasPrefix("@page") {
                        continue  // a group rule: its rules follow as if at the top
                    }
                    let end = css[index...].firstIndex(of: "}") ?? css.endIndex
                    rules.append(StyleRule(selector: selector, body: String(css[index..<end])))
                    index = end < css.endIndex ? css.index(after: end) : end
                case "}", ";":
                    prelude = ""
                default:
                    prelude.append(character)
                }
            }
        }
        return rules
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

    /// The value of the last `name:` declaration in `body`.
    private static func declaration(_ name: String, in body: String) -> String? {
        var value: String?
        for item in body.split(separator: ";") {
            guard let colon = item.firstIndex(of: ":") else { continue }
            if item[..<colon].trimmingCharacters(in: .whitespacesAndNewlines).lowercased() == name {
                value = item[item.index(after: colon)...].trimmingCharacters(in: .whitespacesAndNewlines)
            }
        }
        return value
    }

    /// The family names in a `font-family` (or the end of a `font`) value, unquoted.
    private static func families(in value: String) -> [String] {
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

    private static func firstURL(in value: String) -> String? {
        guard let open = value.range(of: "url(", options: .caseInsensitive),
              let close = value[open.upperBound...].firstIndex(of: ")") else { return nil }
        let url = value[open.upperBound..<close].trimmingCharacters(in: CharacterSet(charactersIn: "\"' "))
        return url.isEmpty ? nil : url
    }

    /// An XPath for the elements the last compound of `selector` names (tag, classes, id), or nil when it names
    /// none or holds characters this reading does not take.
    private static func xpath(forSelector selector: String) -> String? {
        let compounds = selector.split(whereSeparator: { " >+~\n\t".contains($0) })
        guard var compound = compounds.last.map(String.init) else { return nil }
        if let pseudo = compound.firstIndex(of: ":") { compound = String(compound[..<pseudo]) }
        if let attribute = compound.firstIndex(of: "[") { compound = String(compound[..<attribute]) }
        var tag = ""
        var predicates: [String] = []
        var current = ""
        var marker: Character?
        func flush() {
            switch marker {
            case nil: tag = current
            case ".": predicates.append("contains(concat(' ', normalize-space(@class), ' '), ' \(current) ')")
            default: predicates.append("@id='\(current)'")
            }
            current = ""
        }
        for character in compound {
            if character == "." || character == "#" {
                flush()
                marker = character
            } else if character.isLetter || character.isNumber || character == "-" || character == "_" || character == "*" {
                current.append(character)
            } else {
                return nil
            }
        }
        flush()
        let name = tag.isEmpty ? "*" : tag.lowercased()
        guard name != "*" || !predicates.isEmpty else { return nil }
        return "//" + name + predicates.map { "[\($0)]" }.joined()
    }
}

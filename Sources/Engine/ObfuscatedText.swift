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

        /// The warnings for the chapter's whole `text`; fonts of `decoded` (families, lower-cased) were decoded,
        /// so drawing the text is no longer a sign of scrambling.
        func warnings(text: String, field: String, decoded: Set<String> = [], failed: [String: String] = [:]) -> [String] {
            ObfuscatedText.warnings(text: text, fonts: fonts,
                                    drawing: drawing.filter { !decoded.contains($0.family.lowercased()) }, field: field,
                                    failed: failed)
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
    /// `drawing` the fonts applied to the content (see `fonts(drawing:in:declared:)`); `failed` says why a font
    /// (by lower-cased family) could not be decoded.
    static func warnings(text: String, fonts: [WebFont], drawing: [WebFont], field: String,
                         failed: [String: String] = [:]) -> [String] {
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
            let reasons = failed.sorted { $0.key < $1.key }.map { "; \"\($0.key)\" could not be decoded: \($0.value)" }
            return ["\(field): \(percent)% of the chapter's letters \(privateUsePhrase) (U+E000–U+F8FF, "
                + "planes 15–16), \(drawer): the text is obfuscated and reads as it is only with that font"
                + reasons.joined()]
        }
        return drawing.map { font in
            "\(field): the chapter text \(webFontPhrase) \(font.description) the page loads with "
                + "@font-face; such fonts often show other letters than the characters the page holds, so the text "
                + "may be scrambled" + (failed[font.family.lowercased()].map { "; it could not be decoded: \($0)" } ?? "")
        }
    }

    static func isPrivateUse(_ scalar: Unicode.Scalar) -> Bool {
        (0xE000...0xF8FF).contains(scalar.value) || scalar.value >= 0xF0000
    }

    // MARK: - Fonts

    /// The `@font-face` fonts of the page's `<style>` blocks.
    static func declaredFonts(in document: HTMLDocument) -> [WebFont] {
        // Most pages have no web font: a walk for `<style>` and a look at its text settle that.
        let styles = elements("//style/text()", in: document).map(\.stringValue)
        guard styles.contains(where: { $0.lowercased().contains("@font-face") }) else { return [] }
        var fonts: [WebFont] = []
        for face in styles.flatMap({ StyleSheet(css: $0, baseURL: "").fontFaces }) {
            if !fonts.contains(where: { $0.family.lowercased() == face.family.lowercased() }) {
                fonts.append(WebFont(family: face.family, url: face.sources.first))
            }
        }
        return fonts
    }

    /// Those of `declared` that a rule or `style` attribute of the page applies to an element whose text overlaps
    /// `content` (the text the content rule read from this page).
    static func fonts(drawing content: [String], in document: HTMLDocument, declared: [WebFont]) -> [WebFont] {
        guard !declared.isEmpty else { return [] }
        let contentText = squeezed(content.joined())
        guard !contentText.isEmpty else { return [] }
        let families = declared.map(\.family)
        var drawing: [WebFont] = []
        for css in elements("//style/text()", in: document).map(\.stringValue) {
            for (selector, family) in StyleSheet(css: css, baseURL: "").rules(naming: families) {
                guard let font = declared.first(where: { $0.family == family }), !drawing.contains(font) else { continue }
                for part in selector.split(separator: ",") {
                    let nodes = SourceEngine.elements(matching: String(part), in: document).prefix(elementLimit)
                    if nodes.contains(where: { overlap(squeezed($0.stringValue), contentText) }) {
                        drawing.append(font)
                        break
                    }
                }
            }
        }
        for node in elements("//*[@style]", in: document) {
            guard let style = node.attribute("style"), let family = StyleSheet.family(namedIn: style, among: families),
                  let font = declared.first(where: { $0.family == family }),
                  !drawing.contains(font), overlap(squeezed(node.stringValue), contentText) else { continue }
            drawing.append(font)
        }
        return drawing
    }

    /// The first `elementLimit` elements `xpath` selects on the page.
    private static func elements(_ xpath: String, in document: HTMLDocument) -> ArraySlice<HTMLNode> {
        SourceEngine.nodes(xpath, in: document).prefix(elementLimit)
    }

    /// Whether an element's text and the content share a stretch: one starts with text found in the other.
    private static func overlap(_ element: String, _ content: String) -> Bool {
        guard element.count >= 4 else { return false }
        return content.contains(String(element.prefix(12))) || element.contains(String(content.prefix(12)))
    }

    private static func squeezed(_ text: String) -> String {
        String(text.unicodeScalars.filter { !$0.properties.isWhitespace }.map(Character.init))
    }
}

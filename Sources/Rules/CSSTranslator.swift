/// Translates CSS selectors, as jsoup (the engine Legado runs) reads them, into XPath 1.0 for libxml2.
///
/// `xpath(_:)` gives an expression to evaluate with the context node as XPath context: it selects the context
/// itself or its descendants that match, in document order, exactly like jsoup's `Element.select(css)` (which
/// also includes the element it is called on). Compile it once and run it per list element.
///
/// jsoup's semantics are kept where they differ from the CSS standard (checked against jsoup 1.15.3):
/// - class names and attribute values compare case-insensitively (`[href$=.HTML]` matches `a.html`), and
///   `[attr=value]` ignores spaces around the element's value;
/// - `[attr~=x]` is a regular expression searched in the value (jsoup's extension), translated when it is
///   literal alternatives, optionally anchored with `^`/`$`, grouped, or prefixed with `(?i)`;
/// - combinators do not look above the context: from a list element, `div a` only sees `div`s inside that
///   element (or the element itself);
/// - `:lt(n)`, `:gt(n)`, `:eq(n)` count element siblings from 0; `:contains(x)` searches the element's text,
///   `:containsOwn(x)` its own text, both case-insensitively with whitespace collapsed.
///
/// XPath 1.0 cannot express everything; those pieces are errors naming the piece (see `CSSTranslationError`).
package enum CSSTranslator {
    /// An XPath 1.0 expression selecting the context node or its descendants that match `selector`.
    package static func xpath(_ selector: String) throws(CSSTranslationError) -> String {
        try rejectNonXMLCharacters(selector, as: .css)
        let list = try parse(selector)
        let branches = try CSSXPathBuilder.pathBranches(list, excludingContext: false)
        return branches.joined(separator: " | ")
    }

    /// XPath 1.0 literals hold XML characters only: libxml2 stops reading an expression at a NUL and ends a
    /// literal at a control character such as U+0001, so a selector or rule with one is an error naming it
    /// rather than a translation libxml2 rejects ("Unfinished literal") or misreads.
    static func rejectNonXMLCharacters(_ text: String, as subject: CSSTranslationError.Subject) throws(CSSTranslationError) {
        guard let bad = text.unicodeScalars.first(where: { !isXMLCharacter($0) }) else { return }
        let hex = String(bad.value, radix: 16, uppercase: true)
        let code = "U+" + String(repeating: "0", count: max(0, 4 - hex.count)) + hex
        let name = bad.value == 0 ? "a NUL character" : "the control character \(code)"
        throw CSSTranslationError(subject, text, "\(name) cannot be translated to XPath (it is not an XML character)")
    }

    /// XML 1.0's `Char` production: tab, newline, carriage return and everything from U+0020 up but U+FFFE and
    /// U+FFFF (Swift strings hold no surrogates).
    private static func isXMLCharacter(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x9, 0xA, 0xD: return true
        case 0x20...0xFFFD, 0x10000...0x10FFFF: return true
        default: return false
        }
    }

    /// Parses a selector list the way jsoup's `QueryParser` does.
    static func parse(_ selector: String) throws(CSSTranslationError) -> CSSSelectorList {
        var parser = CSSParser(selector)
        return try parser.parseList()
    }
}

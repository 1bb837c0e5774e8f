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
        try rejectNUL(selector, as: .css)
        let list = try parse(selector)
        let branches = try CSSXPathBuilder.pathBranches(list, excludingContext: false)
        return branches.joined(separator: " | ")
    }

    /// XPath 1.0 literals cannot hold a NUL (it is no XML character) and libxml2 would stop reading at one, so a
    /// selector or rule with one is an error rather than a translation libxml2 rejects or misreads.
    static func rejectNUL(_ text: String, as subject: CSSTranslationError.Subject) throws(CSSTranslationError) {
        if text.utf8.contains(0) { throw CSSTranslationError(subject, text, "a NUL character cannot be translated to XPath") }
    }

    /// Parses a selector list the way jsoup's `QueryParser` does.
    static func parse(_ selector: String) throws(CSSTranslationError) -> CSSSelectorList {
        var parser = CSSParser(selector)
        return try parser.parseList()
    }
}

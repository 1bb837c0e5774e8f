import BookRuleLocking
import BookRuleRegex
import CLibXML2

/// `br:match(subject, pattern)`: an XPath extension function, true when the Java regular expression `pattern`
/// finds a match anywhere in the string `subject` (Java's `Matcher.find()`), as jsoup runs `[attr~=regex]`,
/// `:matches(regex)` and `:matchesOwn(regex)`. The CSS translation calls it when a pattern is more than literal
/// alternatives (docs/source-format.md, "JSoup segments and CSS").
///
/// Patterns run on PCRE2 through `RegexPattern` (Java's `\uXXXX` escapes, Unicode classes, `RegexLimits`, so a
/// runaway pattern stops at the match limit); compiled patterns are cached by their text. The function lives in
/// its own namespace, bound to the prefix `br` on every XPath context an `HTMLDocument` makes, so no page or
/// rule function can clash with it.
package enum XPathRegexFunction {
    /// The namespace of bookrule's XPath functions; `.invalid` is reserved, so no page declares it by accident.
    package static let namespaceURI = "https://bookrule.invalid/xpath"
    /// The prefix bound to `namespaceURI` on every context.
    package static let prefix = "br"
    /// The function's local name.
    package static let name = "match"

    /// `br:match(subject, pattern)` as XPath text, for translations (`pattern` already an XPath literal).
    package static func call(subject: String, patternLiteral: String) -> String {
        "\(prefix):\(name)(\(subject), \(patternLiteral))"
    }

    /// `br:text(node)`: jsoup's `text()` of the node (`JsoupText`), what `:matches` searches.
    package static func text(_ node: String) -> String { "\(prefix):text(\(node))" }
    /// `br:own-text(node)`: jsoup's `ownText()` of the node, what `:matchesOwn` searches.
    package static func ownText(_ node: String) -> String { "\(prefix):own-text(\(node))" }

    /// A fresh XPath context on `document` with the prefix and the function registered; registrations stay
    /// with the context, so a pooled context keeps them.
    static func newContext(_ document: xmlDocPtr) -> xmlXPathContextPtr? {
        guard let context = xmlXPathNewContext(document) else { return nil }
        guard xmlXPathRegisterNs(context, prefix, namespaceURI) == 0,
              xmlXPathRegisterFuncNS(context, name, namespaceURI, matchFunction) == 0,
              xmlXPathRegisterFuncNS(context, "text", namespaceURI, textFunction) == 0,
              xmlXPathRegisterFuncNS(context, "own-text", namespaceURI, ownTextFunction) == 0 else {
            xmlXPathFreeContext(context)
            return nil
        }
        return context
    }

    /// The most compiled patterns kept; a rule set uses a handful, so the cache only empties for an unusual
    /// stream of generated patterns.
    static let cacheLimit = 256
    private static let cache = Locked<[String: RegexPattern]>([:])

    /// The compiled `pattern`, from the cache when it was compiled before.
    package static func compiled(_ pattern: String) throws -> RegexPattern {
        if let cached = cache.withLock({ $0[pattern] }) { return cached }
        let compiled = try RegexPattern(pattern)
        cache.withLock { patterns in
            if patterns.count >= cacheLimit { patterns.removeAll(keepingCapacity: true) }
            patterns[pattern] = compiled
        }
        return compiled
    }

    /// How many patterns the cache holds (tests).
    static var cachedCount: Int { cache.withLock { $0.count } }
}

/// Where `br:match` leaves the regex error that stopped an evaluation (a match limit, an invalid pattern in a
/// hand-written XPath): the evaluation sets the context's `userData` to one of these for its duration, and the
/// C callback, which must not throw, records into it and raises an XPath error so libxml2 unwinds.
final class XPathFunctionFailure {
    var regexError: RegexError?
}

/// The C callback behind `br:match`. It pops its arguments as strings (a node-set gives its first node's string
/// value, as XPath's `string()`), frees them, and pushes a boolean, or raises an XPath error.
private let matchFunction: xmlXPathFunction = { parser, argumentCount in
    guard let parser else { return }
    guard argumentCount == 2 else {
        xmlXPathErr(parser, Int32(XPATH_INVALID_ARITY.rawValue))
        return
    }
    let patternText = xmlXPathPopString(parser)
    let subjectText = xmlXPathPopString(parser)
    defer {
        bookrule_xmlFree(patternText)
        bookrule_xmlFree(subjectText)
    }
    guard parser.pointee.error == 0 else { return }
    guard let patternText, let subjectText else {
        xmlXPathErr(parser, Int32(XPATH_MEMORY_ERROR.rawValue))
        return
    }
    let pattern = String(cString: patternText)
    let subject = String(cString: subjectText)
    let found: Bool
    do {
        found = try XPathRegexFunction.compiled(pattern).matches(subject)
    } catch {
        if let userData = parser.pointee.context?.pointee.userData {
            let failure = Unmanaged<XPathFunctionFailure>.fromOpaque(userData).takeUnretainedValue()
            if failure.regexError == nil {
                failure.regexError = error as? RegexError
                    ?? .matchFailed(pattern: pattern, code: 0, message: "\(error)")
            }
        }
        xmlXPathErr(parser, Int32(XPATH_EXPR_ERROR.rawValue))
        return
    }
    _ = valuePush(parser, xmlXPathNewBoolean(found ? 1 : 0))
}

/// `br:text(node-set)` and `br:own-text(node-set)`: jsoup's text of the set's first node in document order ("" for
/// an empty set). The node-set is popped and freed here; the string pushed is a copy libxml2 owns.
private func pushJsoupText(_ parser: xmlXPathParserContextPtr?, _ argumentCount: Int32, own: Bool) {
    guard let parser else { return }
    guard argumentCount == 1 else {
        xmlXPathErr(parser, Int32(XPATH_INVALID_ARITY.rawValue))
        return
    }
    let set = xmlXPathPopNodeSet(parser)
    defer { if let set { xmlXPathFreeNodeSet(set) } }
    guard parser.pointee.error == 0 else { return }
    var text = ""
    if let set, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab {
        var first = table[0]
        for index in 1..<Int(set.pointee.nodeNr) where xmlXPathCmpNodes(table[index], first) == 1 {
            first = table[index]
        }
        if let first {
            switch first.pointee.type {
            case XML_ELEMENT_NODE:
                text = own ? JsoupText.ownText(of: first) : JsoupText.text(of: first)
            case XML_DOCUMENT_NODE, XML_HTML_DOCUMENT_NODE:
                text = own ? "" : JsoupText.text(of: first)
            default:
                text = first.pointee.content.map { String(cString: $0) } ?? ""
            }
        }
    }
    _ = valuePush(parser, xmlXPathNewString(text))
}

private let textFunction: xmlXPathFunction = { parser, argumentCount in
    pushJsoupText(parser, argumentCount, own: false)
}

private let ownTextFunction: xmlXPathFunction = { parser, argumentCount in
    pushJsoupText(parser, argumentCount, own: true)
}

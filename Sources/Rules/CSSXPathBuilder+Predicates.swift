import BookRuleDocument

extension CSSXPathBuilder {
    // MARK: Predicates

    /// One boolean expression for "the candidate matches `list`", or nil when it never does; throws where the
    /// answer would depend on the context, which a predicate cannot see.
    static func predicate(_ list: CSSSelectorList, isContext: Bool) throws(CSSTranslationError) -> String? {
        var alternatives: [String] = []
        for selector in list.selectors {
            guard let expression = try predicate(selector, isContext: isContext) else { continue }
            if expression == "true()" { return "true()" }
            alternatives.append(expression)
        }
        if alternatives.isEmpty { return nil }
        return alternatives.count == 1 ? alternatives[0] : alternatives.map { "(\($0))" }.joined(separator: " or ")
    }

    static func predicate(_ selector: CSSComplexSelector, isContext: Bool) throws(CSSTranslationError) -> String? {
        if selector.leading != nil || selector.compounds.count > 1 {
            // jsoup's combinators never match the context element itself.
            if isContext { return nil }
        }
        if selector.leading != nil {
            throw CSSTranslationError(selector.text, "a selector starting with a combinator relates to the context element, which an XPath 1.0 predicate cannot see")
        }
        let count = selector.compounds.count
        guard var expression = try compoundPredicate(selector.compounds[count - 1], isContext: isContext) else { return nil }
        var index = count - 2
        while index >= 0 {
            let compound = selector.compounds[index]
            switch selector.combinators[index] {
            case .adjacent, .general:
                // Siblings of an element inside the context are inside it too, and are never the context.
                guard let left = try compoundPredicate(compound, isContext: false) else { return nil }
                let axis = selector.combinators[index] == .adjacent ? "preceding-sibling::*[1]" : "preceding-sibling::*"
                expression = conjunction([expression, "\(axis)[\(left)]"])
            case .child:
                // The parent may be the context itself; that is only safe when nothing further left is asked of it.
                guard index == 0 else {
                    throw CSSTranslationError(selector.text, "here XPath 1.0 can only follow '>' one level up (the parent may be the context element, where jsoup stops)")
                }
                let asContext = try compoundPredicate(compound, isContext: true)
                let asOther = try compoundPredicate(compound, isContext: false)
                guard asContext == asOther else {
                    throw CSSTranslationError(compound.text, "whether the parent is the context element changes the answer, which an XPath 1.0 predicate cannot tell")
                }
                guard let left = asOther else { return nil }
                expression = conjunction([expression, "parent::*[\(left)]"])
            case .descendant:
                throw CSSTranslationError(selector.text, "a descendant combinator here would have to stop at the context element, which an XPath 1.0 predicate cannot see")
            }
            index -= 1
        }
        return expression
    }

    /// The compound as one boolean expression (element name included), or nil when it cannot match.
    static func compoundPredicate(_ compound: CSSCompound, isContext: Bool) throws(CSSTranslationError) -> String? {
        guard let parts = try predicates(of: compound, isContext: isContext) else { return nil }
        var all: [String] = []
        if let name = compound.name { all.append(selfTest(name)) }
        all += parts
        if all.isEmpty { return "true()" }
        return conjunction(all)
    }

    /// The compound's conditions (without its element name), or nil when they cannot hold.
    static func predicates(of compound: CSSCompound, isContext: Bool) throws(CSSTranslationError) -> [String]? {
        var result: [String] = []
        for condition in compound.conditions {
            guard let expression = try predicate(condition, isContext: isContext) else { return nil }
            if expression != "true()" { result.append(expression) }
        }
        return result
    }

    static func predicate(_ condition: CSSCondition, isContext: Bool) throws(CSSTranslationError) -> String? {
        switch condition {
        case .name(let name):
            return selfTest(name)
        case .anyNamespace(let name):
            let suffix = ":" + name
            return "\(selfTest(name)) or \(endsWith("name()", suffix))"
        case .id(let id):
            return "@id=\(literal(id))"
        case .className(let name):
            return classPredicate(name)
        case .attribute(let name, let test):
            return attributePredicate(name, test)
        case .attributePrefix(let prefix):
            return "@*[starts-with(name(), \(literal(prefix)))]"
        case .nth(let a, let b, let fromEnd, let ofType):
            let siblings = ofType.map { nameTest($0) ?? "*[name()=\(literal($0))]" } ?? "*"
            let axis = fromEnd ? "following-sibling" : "preceding-sibling"
            let position = "count(\(axis)::\(siblings))+1"
            guard let condition = nthCondition(position: position, a: a, b: b) else { return nil }
            return condition == "true()" ? "parent::*" : "parent::* and \(condition)"
        case .onlyChild:
            return "parent::* and not(preceding-sibling::* or following-sibling::*)"
        case .onlyOfType(let name):
            let siblings = nameTest(name) ?? "*[name()=\(literal(name))]"
            return "parent::* and not(preceding-sibling::\(siblings) or following-sibling::\(siblings))"
        case .empty:
            return "not(node()[not(self::comment() or self::processing-instruction())])"
        case .root:
            // jsoup: the context element, or the document element when the context is the page. An element
            // below the context is the document element only when the context is the document.
            return isContext ? "true()" : "not(parent::*)"
        case .siblingIndex(let comparison, let number):
            switch comparison {
            case .less: return isContext ? nil : "count(preceding-sibling::*) < \(number)"
            case .greater: return "count(preceding-sibling::*) > \(number)"
            case .equal: return "count(preceding-sibling::*) = \(number)"
            }
        case .contains(let needle):
            return "contains(\(fold(normalizedText("string(.)"), needle: needle)), \(literal(needle)))"
        case .containsOwn(let needle):
            return ownTextContains(needle)
        case .matches(let pattern, let own):
            return textMatches(pattern, own: own)
        case .not(let list):
            guard let inner = try predicate(list, isContext: isContext) else { return "true()" }
            if inner == "true()" { return nil }
            return "not(\(inner))"
        case .is(let list):
            return try predicate(list, isContext: isContext)
        case .has(let list):
            let branches = try pathBranches(list, excludingContext: true)
            return branches.count == 1 ? branches[0] : "(" + branches.joined(separator: " | ") + ")"
        }
    }

    /// jsoup's `hasClass`: a whitespace-separated token equal ignoring case, or (a jsoup quirk that Legado's
    /// `class.a b` relies on) the whole attribute equal ignoring case.
    static func classPredicate(_ name: String) -> String {
        let lowered = name.lowercased()
        let value = fold("@class", needle: lowered)
        if lowered.unicodeScalars.contains(where: { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\u{0C}" }) {
            return "\(value)=\(literal(lowered))"
        }
        return "contains(concat(' ', normalize-space(\(value)), ' '), \(literal(" " + lowered + " ")))"
    }

    static func attributePredicate(_ name: String, _ test: CSSAttributeTest) -> String {
        let attribute = attributeReference(name)
        let value = "string(\(attribute))"
        switch test {
        case .exists:
            return attribute
        case .equals(let expected):
            if expected.isEmpty { return "\(attribute) and normalize-space(\(value))=''" }
            let folded = fold(value, needle: expected)
            let quoted = literal(expected)
            return "contains(\(folded), \(quoted)) and normalize-space(substring-before(\(folded), \(quoted)))=''"
                + " and normalize-space(substring-after(\(folded), \(quoted)))=''"
        case .notEquals(let expected):
            return "not(\(fold(value, needle: expected))=\(literal(expected)))"
        case .prefix(let expected):
            if expected.isEmpty { return attribute }
            return "starts-with(\(fold(value, needle: expected)), \(literal(expected)))"
        case .suffix(let expected):
            if expected.isEmpty { return attribute }
            return endsWith(fold(value, needle: expected), expected)
        case .substring(let expected):
            if expected.isEmpty { return attribute }
            return "contains(\(fold(value, needle: expected)), \(literal(expected)))"
        case .pattern(let alternatives, let ignoringCase):
            var conditions: [String] = []
            for alternative in alternatives {
                let expected = alternative.text
                let subject = ignoringCase ? asciiFold(value, needle: expected) : value
                let condition: String
                switch (alternative.anchoredStart, alternative.anchoredEnd) {
                case (true, true): condition = "\(subject)=\(literal(expected))"
                case (true, false): condition = "starts-with(\(subject), \(literal(expected)))"
                case (false, true): condition = endsWith(subject, expected)
                case (false, false): condition = "contains(\(subject), \(literal(expected)))"
                }
                if expected.isEmpty && !(alternative.anchoredStart && alternative.anchoredEnd) { return attribute }
                if !conditions.contains(condition) { conditions.append(condition) }
            }
            let any = conditions.count == 1 ? conditions[0] : conditions.map { "(\($0))" }.joined(separator: " or ")
            // `=` on an absent attribute compares "" and could hold; jsoup needs the attribute.
            return "\(attribute) and (\(any))"
        case .regex(let pattern):
            // jsoup: `hasAttr(key) && pattern.matcher(attr(key)).find()`, case-sensitive as written.
            return "\(attribute) and \(XPathRegexFunction.call(subject: value, patternLiteral: literal(pattern)))"
        }
    }

    /// jsoup's `:matches(regex)` (`text()`) or `:matchesOwn(regex)` (`ownText()`): that text, computed as jsoup
    /// does (`br:text`, `br:own-text`: a script's or style's is ""), searched with `br:match`.
    static func textMatches(_ pattern: String, own: Bool) -> String {
        let text = own ? XPathRegexFunction.ownText(".") : XPathRegexFunction.text(".")
        return XPathRegexFunction.call(subject: text, patternLiteral: literal(pattern))
    }

    /// jsoup's `ownText()` contains `needle` (already lower-cased and whitespace-collapsed): the element's own
    /// text nodes (the first eight) joined, whitespace collapsed, compared ignoring case. Script and style
    /// contents are data in jsoup, never text.
    static func ownTextContains(_ needle: String) -> String {
        let pieces = (1...8).map { "text()[\($0)]" }.joined(separator: ", ")
        let own = normalizedText("concat(\(pieces))")
        return "not(self::script or self::style) and contains(\(fold(own, needle: needle)), \(literal(needle)))"
    }

    /// jsoup's whitespace normalisation of text: NO-BREAK SPACE counts as a space, zero-width space and soft
    /// hyphen are dropped, runs collapse and the ends are trimmed.
    static func normalizedText(_ expression: String) -> String {
        "normalize-space(translate(\(expression), '\u{A0}\u{200B}\u{AD}', ' '))"
    }

    /// A search text as jsoup prepares it: whitespace runs collapsed to one space (not trimmed), lower-cased.
    static func normalizedNeedle(_ text: String) -> String {
        var result = ""
        var lastWasSpace = false
        for scalar in text.unicodeScalars {
            if scalar == " " || scalar == "\t" || scalar == "\n" || scalar == "\r" || scalar == "\u{0C}" || scalar == "\u{A0}" {
                if !lastWasSpace { result += " " }
                lastWasSpace = true
            } else if scalar == "\u{200B}" || scalar == "\u{AD}" {
                continue
            } else {
                result.unicodeScalars.append(scalar)
                lastWasSpace = false
            }
        }
        return result.lowercased()
    }

    /// jsoup's `:nth-*` test for `position`: `a == 0 ? pos == b : (pos - b) * a >= 0 && (pos - b) % a == 0`.
    static func nthCondition(position: String, a: Int, b: Int) -> String? {
        if a == 0 { return b >= 1 ? "\(position)=\(b)" : nil }
        if a > 0 {
            if a == 1 { return b <= 1 ? "true()" : "\(position)>=\(b)" }
            let modulo = "(\(position)-\(b)) mod \(a)=0"
            return b <= 1 ? modulo : "\(position)>=\(b) and \(modulo)"
        }
        if b < 1 { return nil }
        if a == -1 { return "\(position)<=\(b)" }
        return "\(position)<=\(b) and (\(b)-(\(position))) mod \(-a)=0"
    }
}

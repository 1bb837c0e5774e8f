/// Builds XPath 1.0 from the syntax tree. Two shapes:
/// - *paths* from the context (`descendant-or-self::div/child::a`), which keep jsoup's rule that combinators
///   never look above the context — used for whole selectors and inside `:has()`;
/// - *predicates* on one candidate element, used inside `:not()`/`:is()` and for positional steps. A predicate
///   cannot see the context, so it is only built where the context does not matter: compounds, sibling
///   combinators, and one `>` to the leftmost compound. Whether the candidate is the context itself is
///   passed in (jsoup's combinators and `:lt` never match the context itself, `:root` only it).
enum CSSXPathBuilder {
    static let maximumBranches = 64

    // MARK: Paths

    /// Relative location paths (to join with `|`) selecting the elements that match `list`, starting from the
    /// context; with `excludingContext` the context itself is never selected (`:has`).
    static func pathBranches(_ list: CSSSelectorList, excludingContext: Bool) throws(CSSTranslationError) -> [String] {
        var branches: [String] = []
        for selector in list.selectors {
            branches += try pathBranches(selector, excludingContext: excludingContext)
        }
        var seen = Set<String>()
        branches = branches.filter { seen.insert($0).inserted }
        guard branches.count <= maximumBranches else {
            throw CSSTranslationError(list.text, "the selector needs more than \(maximumBranches) XPath alternatives")
        }
        return branches.isEmpty ? ["self::node()[false()]"] : branches
    }

    static func pathBranches(_ selector: CSSComplexSelector, excludingContext: Bool) throws(CSSTranslationError) -> [String] {
        let first = selector.compounds[0]
        var heads: [String] = []
        switch selector.leading {
        case .child?:
            if let step = try step("child", first, isContext: false) { heads = [step] }
        case .descendant?:
            if let step = try step("descendant", first, isContext: false) { heads = [step] }
        case .adjacent?, .general?:
            throw CSSTranslationError(selector.text, "a selector starting with '+' or '~' asks for the context element's own siblings, which jsoup never selects (they are outside it)")
        case nil:
            let siblingNext = selector.combinators.first.map { $0 == .adjacent || $0 == .general } ?? false
            let contextAllowed = !siblingNext && !(excludingContext && selector.compounds.count == 1)
            let other = try step("descendant", first, isContext: false)
            if contextAllowed {
                let own = try step("self", first, isContext: true)
                // The same test for the context and below it: one descendant-or-self step.
                if let own, let other, own.dropFirst("self".count) == other.dropFirst("descendant".count) {
                    heads = ["descendant-or-self" + other.dropFirst("descendant".count)]
                } else {
                    heads = [own, other].compactMap { $0 }
                }
            } else if let other {
                heads = [other]
            }
        }
        var tail = ""
        for (index, combinator) in selector.combinators.enumerated() {
            let compound = selector.compounds[index + 1]
            let next: String?
            switch combinator {
            case .descendant: next = try step("descendant", compound, isContext: false)
            case .child: next = try step("child", compound, isContext: false)
            case .general: next = try step("following-sibling", compound, isContext: false)
            case .adjacent:
                let parts = try predicates(of: compound, isContext: false)
                next = parts.map { parts in
                    var text = "following-sibling::*[1]"
                    if let name = compound.name { text += "[\(selfTest(name))]" }
                    for part in parts { text += "[\(part)]" }
                    return text
                }
            }
            guard let next else { return [] }
            tail += "/" + next
        }
        return heads.map { $0 + tail }
    }

    /// `axis::name[p1][p2]`, or nil when the compound cannot match there.
    static func step(_ axis: String, _ compound: CSSCompound, isContext: Bool) throws(CSSTranslationError) -> String? {
        guard let parts = try predicates(of: compound, isContext: isContext) else { return nil }
        var text = axis + "::"
        if let name = compound.name {
            if let test = nameTest(name) {
                text += test
            } else {
                text += "*[name()=\(literal(name))]"
            }
        } else {
            text += "*"
        }
        for part in parts { text += "[\(part)]" }
        return text
    }
}

indirect enum CSSCondition: Sendable {
    /// A further element name in the same compound (`a*`, `*|a`).
    case name(String)
    /// `*|name`: `name` or any `prefix:name`.
    case anyNamespace(String)
    case id(String)
    /// `.name`; jsoup compares class names case-insensitively.
    case className(String)
    case attribute(name: String, test: CSSAttributeTest)
    /// `[^prefix]`: an attribute whose name starts with `prefix`.
    case attributePrefix(String)
    /// `:nth-child(an+b)` and friends; `ofType` needs the compound's element name.
    case nth(a: Int, b: Int, fromEnd: Bool, ofType: String?)
    case onlyChild
    case onlyOfType(String)
    case empty
    case root
    /// `:lt(n)` (the context element itself never matches), `:gt(n)`, `:eq(n)`: element sibling index.
    case siblingIndex(CSSIndexComparison, Int)
    case contains(String)
    case containsOwn(String)
    /// `:matches(regex)` (the element's text) or `:matchesOwn(regex)` (its own text), validated when parsed.
    case matches(String, own: Bool)
    case not(CSSSelectorList)
    case `is`(CSSSelectorList)
    case has(CSSSelectorList)
}

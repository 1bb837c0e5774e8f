/// `a, b`: any of the selectors.
struct CSSSelectorList: Sendable {
    var selectors: [CSSComplexSelector]
    var text: String
}

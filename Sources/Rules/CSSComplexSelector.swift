/// Compound selectors joined by combinators, e.g. `div.list > a`; may start with a combinator (`> a`), which
/// relates to the context element.
struct CSSComplexSelector: Sendable {
    var leading: CSSCombinator?
    var compounds: [CSSCompound]
    /// `combinators[i]` joins `compounds[i]` and `compounds[i + 1]`.
    var combinators: [CSSCombinator]
    var text: String
}

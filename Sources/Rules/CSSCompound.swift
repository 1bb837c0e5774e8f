/// Simple selectors that must all hold for one element, e.g. `a.x[href]:first-child`.
struct CSSCompound: Sendable {
    /// The element name to test in the XPath step (`nil` for any element).
    var name: String?
    var conditions: [CSSCondition]
    var text: String
}

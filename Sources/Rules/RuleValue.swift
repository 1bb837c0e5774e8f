import BookRuleJSON

/// What one step of a rule chain hands to the next: Legado passes its `result` between the rule and
/// JavaScript parts of `rule@js:code` or `a<js>code</js>b` as whatever the last part produced.
public enum RuleValue: Sendable {
    /// One string (a JavaScript string, number or boolean, or a string rule's joined values).
    case text(String)
    /// Several strings (a string rule's values, or a JavaScript array of strings).
    case texts([String])
    /// One element or object: what a JavaScript step starting a field rule of a list element gets as
    /// `result` (Legado hands it the element itself), or a JavaScript step returns as a single element.
    case item(RuleContext)
    /// Elements further rules can run in: nodes, JSON values, regex matches (a list rule's result, or a
    /// JavaScript array of elements or objects).
    case items([RuleContext])

    /// Nothing: what `null` and `undefined` become.
    public static let none = RuleValue.texts([])

    /// The value as strings, as a string rule reads it: elements give their text.
    public var strings: [String] {
        switch self {
        case .text(let text): return [text]
        case .texts(let texts): return texts
        case .item(let item): return [item.rawText]
        case .items(let items): return items.map(\.rawText)
        }
    }
}

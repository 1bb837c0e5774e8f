/// One value a rule yields, and whether it is markup: text read off the DOM (a node's value, an attribute,
/// `text()`, an XPath string) is already what a browser shows, while raw markup (`html()`, `outerHtml()`, an
/// AllInOne match or `$n` group over the page source, a JSON string) still has its tags and character
/// references. Knowing which lets the engine decode entities exactly once (`&amp;amp;` shows as `&amp;`).
public struct RuleText: Sendable, Equatable {
    /// The value.
    public var text: String
    /// Whether `text` is markup whose tags and character references are still to be read.
    public var isMarkup: Bool

    /// Creates a value.
    public init(_ text: String, isMarkup: Bool) {
        self.text = text
        self.isMarkup = isMarkup
    }

    /// `values` joined with `separator` as one value: markup when any of them is, with the plain values'
    /// `&` and `<` escaped so that reading the whole as markup gives each plain value back unchanged.
    public static func joined(_ values: [RuleText], separator: String) -> RuleText {
        if values.count == 1 { return values[0] }
        guard values.contains(where: \.isMarkup) else {
            return RuleText(values.map(\.text).joined(separator: separator), isMarkup: false)
        }
        return RuleText(values.map(\.markup).joined(separator: separator), isMarkup: true)
    }

    /// The value as markup: itself when it is markup, else with `&` and `<` escaped.
    public var markup: String {
        if isMarkup || !text.utf8.contains(where: { $0 == UInt8(ascii: "&") || $0 == UInt8(ascii: "<") }) { return text }
        var escaped = ""
        escaped.reserveCapacity(text.utf8.count + 8)
        for character in text {
            switch character {
            case "&": escaped += "&amp;"
            case "<": escaped += "&lt;"
            default: escaped.append(character)
            }
        }
        return escaped
    }
}

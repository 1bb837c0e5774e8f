/// One piece of JavaScript in a rule, with where it was written, so an error can name the field and where in
/// the snippet it happened.
public struct ScriptSnippet: Sendable, Hashable {
    /// How the snippet was written in the rule.
    public enum Placement: String, Sendable, Hashable {
        /// `@js:` to the end of the rule.
        case atJS = "@js:"
        /// `<js>…</js>` inside a rule chain.
        case tag = "<js>"
        /// `{{…}}` inside a template.
        case template = "{{…}}"
        /// A field whose whole value is JavaScript (`jsLib`, or a URL written as JavaScript).
        case whole = "JavaScript field"
    }

    /// The JavaScript source.
    public let code: String
    /// The field path it belongs to, e.g. `ruleContent.content`.
    public let field: String
    /// How it was written.
    public let placement: Placement

    /// Creates a snippet.
    public init(code: String, field: String, placement: Placement) {
        self.code = code
        self.field = field
        self.placement = placement
    }
}

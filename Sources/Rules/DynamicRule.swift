import BookRuleLocking


/// An XPath whose text embeds `@get:{key}` or `{{rule}}`: the values are substituted into the text before it
/// is compiled, as Legado does (`//a[@id='@get:{id}']`). Each distinct text is compiled once and cached.
final class DynamicRule: Sendable {
    let text: String
    let field: String
    let kind: RuleKind
    let pieces: [TemplatePiece]
    private let cache = Locked<[String: RuleBody]>([:])

    init(text: String, field: String, kind: RuleKind, pieces: [TemplatePiece]) {
        self.text = text
        self.field = field
        self.kind = kind
        self.pieces = pieces
    }

    /// The body for the text with the values at `context` substituted.
    func body(in context: RuleContext, environment: RuleEnvironment) throws -> RuleBody {
        let resolved = try RuleBody.template(pieces).strings(in: context, environment: environment).joined()
        if let cached = cache.withLock({ $0[resolved] }) { return cached }
        let body = try RuleParser.parseBody(resolved, field: field, kind: kind, allowDynamic: false).body
        cache.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[resolved] = body
        }
        return body
    }
}

import Synchronization

/// A rule whose text embeds `@get:{key}`: the value is substituted into the text before it is compiled, as
/// Legado does. Each distinct text is compiled once and cached.
final class DynamicRule: Sendable {
    let text: String
    let field: String
    let kind: RuleKind
    private let cache = Mutex<[String: RuleBody]>([:])

    init(text: String, field: String, kind: RuleKind) {
        self.text = text
        self.field = field
        self.kind = kind
    }

    /// The body for the text with variables substituted.
    func body(with variables: RuleVariables) throws(RuleError) -> RuleBody {
        let resolved = RuleParser.substituteVariables(in: text) { variables[$0] }
        if let cached = cache.withLock({ $0[resolved] }) { return cached }
        let body = try RuleParser.parseBody(resolved, field: field, kind: kind, allowDynamic: false).body
        cache.withLock { cache in
            if cache.count > 256 { cache.removeAll() }
            cache[resolved] = body
        }
        return body
    }
}

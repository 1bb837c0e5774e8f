extension Rule {
    /// Every piece of JavaScript in the rule, in order, so a source can be checked when it loads (syntax,
    /// helpers) rather than when a chapter is read.
    public var scripts: [ScriptSnippet] {
        var found: [ScriptSnippet] = []
        for put in puts { put.rule.collectScripts(into: &found) }
        body.collectScripts(into: &found)
        return found
    }
}

extension RuleBody {
    func collectScripts(into found: inout [ScriptSnippet]) {
        switch self {
        case .empty, .xpath, .allInOne, .rawText, .jsonPath, .jsonTemplate:
            return
        case .firstNonEmpty(let parts), .concatenation(let parts), .interleaving(let parts):
            for part in parts { part.collectScripts(into: &found) }
        case .byContent(let html, let json):
            html.collectScripts(into: &found)
            json.collectScripts(into: &found)
        case .template(let pieces):
            Self.collectScripts(in: pieces, into: &found)
        case .dynamic(let rule):
            Self.collectScripts(in: rule.pieces, into: &found)
        case .replace(let inner, _):
            inner.collectScripts(into: &found)
        case .chain(let steps, _):
            for step in steps {
                switch step {
                case .rule(let body): body.collectScripts(into: &found)
                case .script(let snippet): found.append(snippet)
                case .templatedScript(let snippet, let pieces):
                    found.append(snippet)
                    Self.collectScripts(in: pieces, into: &found)
                }
            }
        }
    }

    private static func collectScripts(in pieces: [TemplatePiece], into found: inout [ScriptSnippet]) {
        for case .rule(let body) in pieces { body.collectScripts(into: &found) }
    }
}

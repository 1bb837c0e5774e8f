/// Runs the steps of a rule that mixes rules and JavaScript, as Legado's rule analyser does: `result` starts
/// as the content the rule runs in, each rule step reads the previous value (strings for string rules,
/// elements for list rules), each JavaScript step's completion value becomes the next value, and a
/// JavaScript step that gives `null` ends the chain with nothing (an empty array does not: the next step
/// gets it, as in Legado).
///
/// Whether the value is markup (see `RuleText`) is carried along: a script transforms what it was given, so
/// its result is markup when its input was (the page source, a JSON string), and text when it was text off
/// the DOM, which keeps entities decoded exactly once.
enum RuleChain {
    static func run(_ steps: [ChainStep], kind: RuleKind, in context: RuleContext,
                    environment: RuleEnvironment) throws -> (value: RuleValue, isMarkup: Bool) {
        var value: RuleValue?
        var isMarkup = context.rawTextIsMarkup
        for step in steps {
            switch step {
            case .rule(let body):
                value = try runRule(body, kind: kind, after: value, in: context, environment: environment,
                                    isMarkup: &isMarkup)
            case .script(let snippet), .templatedScript(let snippet, _):
                guard let script = environment.script else {
                    throw RuleError(field: snippet.field, dialect: .javaScript,
                                    reason: "JavaScript needs a script runtime, and none was given to this rule",
                                    rule: snippet.code)
                }
                let result = value ?? initialResult(context, kind: kind)
                if value == nil, case .item(.node) = result { isMarkup = false }
                var runnable = snippet
                if case .templatedScript(_, let pieces) = step {
                    let code = try assemble(pieces, result: result, script: script, in: context, environment: environment)
                    runnable = ScriptSnippet(code: code, field: snippet.field, placement: snippet.placement)
                }
                let output = try script.run(runnable, result: result, in: context, environment: environment)
                if case .texts(let texts) = output, texts.isEmpty { return (.none, isMarkup) }
                value = output
            }
        }
        return (value ?? .none, isMarkup)
    }

    /// One rule step: `body` read in each of the contexts the previous step's value gives (in `context` for
    /// the first step), as elements for a list rule, else as its values joined into one text (whose markup
    /// flag becomes the chain's).
    private static func runRule(_ body: RuleBody, kind: RuleKind, after value: RuleValue?, in context: RuleContext,
                                environment: RuleEnvironment, isMarkup: inout Bool) throws -> RuleValue {
        let inputs = value.map(contexts(of:)) ?? [context]
        if kind == .list {
            return .items(try inputs.flatMap { try body.elements(in: $0, environment: environment) })
        }
        let joined = RuleText.joined(try inputs.flatMap { try body.texts(in: $0, environment: environment) },
                                     separator: "\n")
        isMarkup = joined.isMarkup
        return .text(joined.text)
    }

    /// What the JavaScript step that ends a string chain is given as `result` in `context`, and whether the
    /// chain's value is then markup: `ruleSteps` (the steps before it, rules only) run as `run` runs them.
    /// nil when they give no text (they always do: a string chain's rule steps give one text each).
    static func scriptInput(_ ruleSteps: ArraySlice<ChainStep>, kind: RuleKind, in context: RuleContext,
                            environment: RuleEnvironment) throws -> (text: String, isMarkup: Bool)? {
        var value: RuleValue?
        var isMarkup = context.rawTextIsMarkup
        for case .rule(let body) in ruleSteps {
            value = try runRule(body, kind: kind, after: value, in: context, environment: environment, isMarkup: &isMarkup)
        }
        guard case .text(let text)? = value else { return nil }
        return (text, isMarkup)
    }

    /// The code of a templated script step: its text with each `{{…}}` replaced by its value (JavaScript run
    /// with the step's `result`, as Legado's makeUpRule does; a rule read in `context`) and each `@get:{key}` by
    /// the variable. A value of several strings goes in joined by newlines; null goes in as nothing.
    private static func assemble(_ pieces: [TemplatePiece], result: RuleValue, script: any ScriptEvaluating,
                                 in context: RuleContext, environment: RuleEnvironment) throws -> String {
        var code = ""
        for piece in pieces {
            switch piece {
            case .literal(let text):
                code += text
            case .variable(let key):
                code += environment.variables[key]
            case .group:
                continue
            case .rule(let body):
                let values: [String]
                if case .chain(let steps, _) = body, steps.count == 1, case .script(let inner) = steps[0] {
                    values = try script.run(inner, result: result, in: context, environment: environment).strings
                } else {
                    values = try body.strings(in: context, environment: environment)
                }
                code += values.joined(separator: "\n")
            }
        }
        return code
    }

    /// What `result` is before any step ran: the page's source for a page, the element or object itself for
    /// one element of a list, the text for text.
    private static func initialResult(_ context: RuleContext, kind: RuleKind) -> RuleValue {
        switch context {
        case .node(let node) where node.kind == .document:
            return node.document.json == nil ? .text(node.document.sourceText) : .item(context)
        case .text(let text):
            return .text(text)
        case .node, .json, .match:
            return .item(context)
        }
    }

    /// The contexts a rule step after a JavaScript step runs in: text is parsed as a page (or JSON) by the
    /// dialect that reads it; elements are each read in turn.
    private static func contexts(of value: RuleValue) -> [RuleContext] {
        switch value {
        case .text(let text): return [.text(text)]
        case .texts(let texts): return [.text(texts.joined(separator: "\n"))]
        case .item(let item): return [item]
        case .items(let items): return items
        }
    }
}

extension RuleValue {
    /// The value as list elements: a list rule whose last step is JavaScript. A string that holds a JSON
    /// array lists its elements (sources return `JSON.stringify(list)` as often as the list itself).
    var contexts: [RuleContext] {
        switch self {
        case .items(let items): return items
        case .item(let item): return [item]
        case .texts(let texts): return texts.map(RuleContext.text)
        case .text(let text):
            if text.isEmpty { return [] }
            if case .array(let elements)? = RuleContext.text(text).jsonValue {
                return elements.map { RuleContext.json($0.value) }
            }
            return [.text(text)]
        }
    }
}

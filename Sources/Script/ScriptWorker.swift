import BookRuleDocument
import BookRuleJSON
import BookRuleRules

/// Everything of one `ScriptRuntime` that lives on its thread: the engine, the helpers' state and the stack
/// of evaluations in progress (a snippet calling `java.getString` on a rule with JavaScript nests one).
///
/// Not `Sendable`: created, used and released on the runtime's thread only.
final class ScriptWorker {
    /// One evaluation in progress: what `java.getString(rule)` and friends read.
    struct Frame {
        /// The field, for error messages.
        let field: String
        /// The content rules run on: the step's context, or what `java.setContent` set.
        var content: RuleContext
        /// The script-parsed tree `content` belongs to, if any.
        var contentTree: ScriptTree?
        /// The environment, its base URL changed by `java.setContent(c, url)` / `java.setBaseUrl`.
        var environment: RuleEnvironment
    }

    let engine: JSEngine
    let host: any ScriptHost
    let limits: ScriptLimits
    var frames: [Frame] = []
    /// Snippets already syntax-checked (a rule's snippets run once per element; parse them once).
    private var checked: Set<String> = []
    /// Rules `java.getString`/`getElements`/`select` parsed, by kind and text.
    private var rules: [String: Rule] = [:]

    /// Starts the engine, installs the helpers and evaluates `jsLib` into the global scope.
    init(jsLib: String?, limits: ScriptLimits, host: any ScriptHost) throws(ScriptError) {
        self.engine = JSEngine()
        self.host = host
        self.limits = limits
        engine.defineNatives("natives", nativeFunctions())
        do {
            try engine.evaluateGlobal(ScriptPrelude.source, sourceURL: "bookrule-prelude.js", limits: nil,
                                      keepAs: "prelude")
            try engine.callKept("prelude", with: "natives", keepAs: "exports")
            for name in ["bind", "unbind", "snapshot", "cleanup", "resetClock", "installFixedClock"] {
                engine.keepProperty(name, of: "exports", as: name)
            }
            engine.keepProperty("nodePrototype", of: "exports", as: "nodePrototype")
            // The isolation wrapper is evaluated on its own so the only scope around a snippet is the global
            // one (a direct eval sees its caller's variables).
            try engine.evaluateGlobal("(function () { return eval(arguments[0]); })", sourceURL: "bookrule-run.js",
                                      limits: nil, keepAs: "run")
            if case .fixed = host.clock { _ = try engine.call("installFixedClock", []) }
        } catch {
            throw .engineUnavailable("the helpers did not load: \(error.message)")
        }
        if let jsLib, !jsLib.trimmingASCIIWhitespace().isEmpty {
            if let error = SyntaxChecker.shared.check(jsLib) { throw .syntax(field: "jsLib", error) }
            do {
                try resetClock()
                try engine.evaluateGlobal(jsLib, sourceURL: "jsLib.js", limits: limits)
            } catch {
                throw Self.scriptError(error, field: "jsLib", limits: limits)
            }
        }
        do {
            _ = try engine.call("snapshot", [])
        } catch {
            throw .engineUnavailable(error.message)
        }
    }

    /// Runs one snippet (see `ScriptRuntime.evaluate`).
    func evaluate(_ snippet: ScriptSnippet, bindings: ScriptBindings, result: RuleValue, context: RuleContext,
                  environment: RuleEnvironment) throws(ScriptError) -> RuleValue {
        guard frames.count < limits.maxNesting else {
            throw .nestedTooDeeply(field: snippet.field, limit: limits.maxNesting)
        }
        if !checked.contains(snippet.code) {
            if let error = SyntaxChecker.shared.check(snippet.code) { throw .syntax(field: snippet.field, error) }
            if checked.count > 4096 { checked.removeAll() }
            checked.insert(snippet.code)
        }
        let topLevel = frames.isEmpty
        let tree = frames.last.flatMap { frame in Self.tree(of: context, in: frame) }
        frames.append(Frame(field: snippet.field, content: context, contentTree: tree, environment: environment))
        defer { frames.removeLast() }
        do {
            if topLevel { try resetClock() }
            _ = try engine.call("bind", [bindingsValue(bindings, result: result, context: context)])
            defer {
                _ = try? engine.call("unbind", [])
                if topLevel { _ = try? engine.call("cleanup", []) }
            }
            let value = try engine.call("run", [.string(snippet.code)], limits: limits)
            return ruleValue(of: value)
        } catch {
            throw Self.scriptError(error, field: snippet.field, limits: limits)
        }
    }

    /// Restarts the fixed clock and random sequence (nothing under the system clock).
    private func resetClock() throws(JSError) {
        guard case .fixed(let milliseconds, let seed) = host.clock else { return }
        _ = try engine.call("resetClock", [.number(Double(milliseconds)), .number(Double(seed >> 32)),
                                           .number(Double(seed & 0xFFFF_FFFF))])
    }

    /// The tree a context node belongs to, when it is one the current frame's script parsed.
    private static func tree(of context: RuleContext, in frame: Frame) -> ScriptTree? {
        guard case .node(let node) = context, let tree = frame.contentTree, tree.document === node.document else {
            return nil
        }
        return tree
    }

    // MARK: - Errors

    static func scriptError(_ error: JSError, field: String, limits: ScriptLimits) -> ScriptError {
        switch error.kind {
        case .timeLimit: return .timeLimit(field: field, limit: limits.timeLimit)
        case .heapLimit: return .heapLimit(field: field, limit: limits.heapLimit)
        case .thrown: return .thrown(field: field, message: error.message, line: error.line)
        }
    }

    // MARK: - Values between rules and scripts

    /// The globals of one evaluation, for the prelude's `bind`.
    private func bindingsValue(_ bindings: ScriptBindings, result: RuleValue, context: RuleContext) -> ScriptValue {
        func optional(_ text: String?) -> ScriptValue { text.map(ScriptValue.string) ?? .null }
        var members: [(key: String, value: ScriptValue)] = [
            ("result", scriptValue(of: result)),
            ("src", .string(RuleValue.items([context]).strings.first ?? "")),
            ("baseUrl", .string(bindings.baseURL)),
            ("key", optional(bindings.key)),
            ("page", bindings.page.map { .number(Double($0)) } ?? .null),
            ("title", optional(bindings.title ?? bindings.chapter?.title)),
            ("nextChapterUrl", optional(bindings.nextChapterURL)),
        ]
        if let book = bindings.book {
            members.append(("book", .object([
                ("name", .string(book.name)), ("author", .string(book.author)), ("bookUrl", .string(book.bookURL)),
                ("tocUrl", .string(book.tocURL)), ("origin", .string(book.origin)), ("kind", .string(book.kind)),
                ("intro", .string(book.intro)), ("coverUrl", .string(book.coverURL)),
                ("latestChapterTitle", .string(book.latestChapterTitle)), ("wordCount", .string(book.wordCount)),
                ("durChapterTitle", .string(book.durChapterTitle)),
                ("durChapterIndex", .number(Double(book.durChapterIndex))),
                ("totalChapterNum", .number(Double(book.totalChapterNum))),
            ])))
        } else {
            members.append(("book", .null))
        }
        if let chapter = bindings.chapter {
            members.append(("chapter", .object([
                ("title", .string(chapter.title)), ("url", .string(chapter.url)),
                ("index", .number(Double(chapter.index))), ("baseUrl", .string(chapter.baseURL)),
                ("isVip", .bool(chapter.isVIP)), ("isVolume", .bool(chapter.isVolume)),
            ])))
        } else {
            members.append(("chapter", .null))
        }
        return .object(members)
    }

    /// `result` as a script sees it: text as a string, texts as an array (with Java list methods), one item
    /// as that item (an element as a one-element `Elements`, a page as its source text, a JSON object as an
    /// object), several items as an array.
    func scriptValue(of value: RuleValue) -> ScriptValue {
        switch value {
        case .text(let text):
            return .string(text)
        case .texts(let texts):
            return .array(texts.map(ScriptValue.string))
        case .item(let item):
            return scriptValue(of: .items([item]))
        case .items(let items):
            if items.count == 1, case .node(let node) = items[0], node.kind == .document {
                return .string(node.document.sourceText)
            }
            if items.count == 1, case .json(let json) = items[0] { return scriptValue(of: json) }
            let tree = frames.last?.contentTree
            return .array(items.map { item in
                switch item {
                case .node(let node):
                    return .node(ScriptNode(node, tree: tree?.document === node.document ? tree : nil))
                case .json(let json):
                    return scriptValue(of: json)
                case .text(let text):
                    return .string(text)
                case .match(let match):
                    return .array(match.groups.map { $0.map(ScriptValue.string) ?? .null })
                }
            })
        }
    }

    /// A JSON value as a script object.
    func scriptValue(of json: JSONValue) -> ScriptValue {
        switch json {
        case .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let literal): return .number(Double(literal) ?? .nan)
        case .string(let text): return .string(text)
        case .array(let items): return .array(items.map { scriptValue(of: $0.value) })
        case .object(let object): return .object(object.members.map { ($0.key, scriptValue(of: $0.value.value)) })
        }
    }

    /// A snippet's completion value as the next step's value (see `ScriptRuntime.evaluate`).
    func ruleValue(of value: ScriptValue) -> RuleValue {
        switch value {
        case .undefined, .null:
            return .none
        case .string, .number, .bool:
            return .text(value.text ?? "")
        case .node(let node):
            return .items([.node(node.node)])
        case .object:
            return .items([.json(Self.json(of: value))])
        case .array(let items):
            if items.allSatisfy({ $0.text != nil || $0.optionalText == nil }) {
                return .texts(items.map { $0.text ?? "" })
            }
            return .items(items.map { item in
                switch item {
                case .node(let node): return .node(node.node)
                case .object, .array: return .json(Self.json(of: item))
                default: return .text(item.text ?? "")
                }
            })
        }
    }

    /// A script value as JSON (nodes as their markup).
    static func json(of value: ScriptValue) -> JSONValue {
        let here = SourceLocation(line: 1, column: 1)
        switch value {
        case .undefined, .null: return .null
        case .bool(let flag): return .bool(flag)
        case .number(let number): return number.isFinite ? .number(ScriptValue.format(number)) : .null
        case .string(let text): return .string(text)
        case .node(let node): return .string(node.node.outerHTML)
        case .array(let items): return .array(items.map { JSONNode(json(of: $0), location: here) })
        case .object(let members):
            return .object(JSONObject(members: members.map { ($0.key, JSONNode(json(of: $0.value), location: here)) }))
        }
    }

    /// The rule context a script value names as content (`java.getString(rule, content)`, `setContent`).
    func context(of value: ScriptValue) -> (RuleContext, ScriptTree?) {
        switch value {
        case .node(let node):
            return (.node(node.node), node.tree)
        case .object:
            return (.json(Self.json(of: value)), nil)
        case .array(let items):
            if items.count == 1, case .node(let node) = items[0] { return (.node(node.node), node.tree) }
            return (.json(Self.json(of: value)), nil)
        default:
            return (.text(value.text ?? ""), nil)
        }
    }

    /// `text` parsed as a rule of `kind`, cached.
    func rule(_ text: String, kind: RuleKind) throws -> Rule {
        let key = "\(kind)\u{1}\(text)"
        if let rule = rules[key] { return rule }
        let rule = try RuleParser.parse(text, field: frames.last?.field ?? "JavaScript", kind: kind)
        if rules.count > 1024 { rules.removeAll() }
        rules[key] = rule
        return rule
    }
}

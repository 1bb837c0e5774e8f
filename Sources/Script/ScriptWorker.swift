import CJavaScriptCore
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
        /// The frame of a call over all the elements of a list (`evaluateEach`): no helper may run in it.
        var batched = false
    }

    let engine: JSEngine
    let host: any ScriptHost
    let limits: ScriptLimits
    var frames: [Frame] = []
    /// Snippets compiled, by their code (a rule's snippets run once per element; parse them once).
    private var compiled: [String: CompiledSnippet] = [:]
    /// Whether `jsLib` names a binding (or reaches the global object), so its functions may read the
    /// bindings as globals: then every snippet also sets them as globals around its call.
    private let jsLibReadsBindings: Bool
    /// Whether there is a `jsLib`, whose functions may leave globals behind when a snippet calls them.
    let hasJSLib: Bool
    /// The prelude's functions and objects an evaluation uses, looked up once the prelude has run.
    private(set) var prelude: PreludeFunctions?
    /// The function that runs a compiled snippet for each of many `result`s in one call (`evaluateEach`).
    private(set) var eachRunner: JSObjectRef?
    /// The element of a call over a list's elements at which a helper was refused (see `Frame.batched`).
    var helperRefusedAt: Int32?
    /// Where `eachRunner` writes the index of the element it is at, for the watchdog (an `Int32Array` of
    /// one element over this memory is kept by the engine as `elementIndex`).
    private(set) var elementIndex: UnsafeMutablePointer<Int32>?

    /// Rules `java.getString`/`getElements`/`select` parsed, by kind and text.
    private var rules: [String: Rule] = [:]
    /// Fonts scripts opened with `java.queryTTF`.
    var fonts = ScriptFonts()

    /// Starts the engine, installs the helpers and evaluates `jsLib` into the global scope.
    init(jsLib: String?, limits: ScriptLimits, host: any ScriptHost) throws(ScriptError) {
        if let problem = JavaScriptCoreOptions.startProblem { throw .engineUnavailable(problem) }
        self.engine = JSEngine()
        self.host = host
        self.limits = limits
        let jsLib = jsLib.flatMap { $0.trimmingASCIIWhitespace().isEmpty ? nil : $0 }
        hasJSLib = jsLib != nil
        jsLibReadsBindings = jsLib.map { lib in
            let reading = SnippetReading(lib)
            return reading.reachesGlobals || reading.names.contains(true)
        } ?? false
        // A field evaluated for all the elements of a list at once (`evaluateEach`) has no element's content
        // for a helper to read: a helper reached anyway (a snippet that got to one by a path its text does not
        // show) stops the call at that element, which is then evaluated on its own, with its content.
        engine.defineNatives("natives", (nativeFunctions() + fontFunctions()).map { native in
            (native.name, { [unowned self] arguments throws -> ScriptValue in
                guard frames.last?.batched != true else {
                    // Even if the snippet catches this, its element (and those after it) are evaluated again.
                    if helperRefusedAt == nil { helperRefusedAt = elementIndex?.pointee }
                    throw HelperFailure("a helper is evaluated one element at a time")
                }
                return try native.body(arguments)
            })
        })
        do {
            try engine.evaluateGlobal(ScriptPrelude.source, sourceURL: "bookrule-prelude.js", limits: nil,
                                      keepAs: "prelude")
            try engine.callKept("prelude", with: "natives", keepAs: "exports")
            for name in ["bind", "unbind", "snapshot", "cleanup", "resetClock", "installFixedClock", "prepareResult",
                         "prepareBook", "prepareChapter", "java", "source", "cookie", "cache"] {
                engine.keepProperty(name, of: "exports", as: name)
            }
            engine.keepProperty("nodePrototype", of: "exports", as: "nodePrototype")
            try engine.evaluateGlobal(AllocationGuards.source(heapLimit: limits.heapLimit),
                                      sourceURL: "bookrule-allocation-guards.js", limits: nil)
            // Evaluated on its own so the only scopes around a snippet are its parameters and the global one
            // (a direct eval sees its caller's variables).
            let runner = try engine.compileFunction(
                "(function (\(CompiledSnippet.parameters)) { return eval(arguments[\(CompiledSnippet.parameterCount)]); })",
                sourceURL: "bookrule-run.js")
            prelude = try PreludeFunctions(engine: engine, statementRunner: runner)
            eachRunner = try engine.compileFunction(Self.eachRunnerSource, sourceURL: "bookrule-each.js")
            let index = UnsafeMutablePointer<Int32>.allocate(capacity: 1)
            index.initialize(to: 0)
            try engine.keepSharedInt32(index, as: "elementIndex")
            elementIndex = index
            if case .fixed = host.clock { _ = try engine.call("installFixedClock", []) }
        } catch {
            throw .engineUnavailable("the helpers did not load: \(error.message)")
        }
        if let jsLib {
            let (code, error) = SyntaxChecker.shared.runnableForm(of: jsLib)
            if let error { throw .syntax(field: "jsLib", error) }
            do {
                try resetClock()
                try engine.evaluateGlobal(code, sourceURL: "jsLib.js", limits: limits)
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

    deinit {
        for snippet in compiled.values { snippet.release(from: engine) }
        if let prelude { engine.release(prelude.statementRunner) }
        if let eachRunner { engine.release(eachRunner) }
    }

    /// Runs one snippet (see `ScriptRuntime.evaluate`).
    ///
    /// The snippet is a function of the bindings (compiled once): only the bindings it names are made,
    /// `src` (an element's markup) among them; they are set as globals too only when the snippet or
    /// `jsLib` could read them that way, and the globals a snippet may leave are removed only when it
    /// could leave one.
    func evaluate(_ snippet: ScriptSnippet, bindings: ScriptBindings, result: RuleValue, context: RuleContext,
                  environment: RuleEnvironment) throws(ScriptError) -> RuleValue {
        guard frames.count < limits.maxNesting else {
            throw .nestedTooDeeply(field: snippet.field, limit: limits.maxNesting)
        }
        guard let prelude else { throw .engineUnavailable("the helpers did not load") }
        let compiled = try compiledSnippet(snippet)
        let topLevel = frames.isEmpty
        let tree = frames.last.flatMap { frame in Self.tree(of: context, in: frame) }
        frames.append(Frame(field: snippet.field, content: context, contentTree: tree, environment: environment))
        defer { frames.removeLast() }
        let bindsGlobals = compiled.reading.reachesGlobals || jsLibReadsBindings
        let cleansUp = topLevel && (compiled.reading.mayCreateGlobals || hasJSLib)
        let outcome = withUnsafeTemporaryAllocation(of: JSValueRef?.self, capacity: CompiledSnippet.parameterCount + 1) {
            buffer -> Result<ScriptValue, JSError> in
            // On the stack, which the collector scans: the values made here stay alive through the call.
            buffer.initialize(repeating: nil)
            let arguments = compiled.code == nil ? UnsafeMutableBufferPointer(rebasing: buffer[..<CompiledSnippet.parameterCount]) : buffer
            return Result { () throws(JSError) -> ScriptValue in
                if topLevel { try resetClock() }
                try fill(arguments, names: bindsGlobals ? nil : compiled.reading.names, prelude: prelude,
                         bindings: bindings, result: result, context: context)
                if let code = compiled.code { arguments[CompiledSnippet.parameterCount] = code }
                if bindsGlobals {
                    _ = try engine.invoke(prelude.bind, UnsafeMutableBufferPointer(rebasing: arguments[..<SnippetReading.bindingNames.count]))
                }
                defer {
                    if bindsGlobals { _ = try? engine.invoke(prelude.unbind, UnsafeMutableBufferPointer(start: nil, count: 0)) }
                    if cleansUp { _ = try? engine.invoke(prelude.cleanup, UnsafeMutableBufferPointer(start: nil, count: 0)) }
                }
                return try engine.invoke(compiled.function, arguments, limits: limits)
            }
        }
        switch outcome {
        case .success(let value): return ruleValue(of: value)
        case .failure(let error): throw Self.scriptError(error, field: snippet.field, limits: limits)
        }
    }

    /// `snippet` syntax-checked and compiled, once: as `return (expression)` when it is one expression,
    /// else run by the statement runner.
    func compiledSnippet(_ snippet: ScriptSnippet) throws(ScriptError) -> CompiledSnippet {
        if let found = compiled[snippet.code] { return found }
        let (code, error) = SyntaxChecker.shared.runnableForm(of: snippet.code)
        if let error { throw .syntax(field: snippet.field, error) }
        guard let prelude else { throw .engineUnavailable("the helpers did not load") }
        let reading = SnippetReading(code)
        var made: CompiledSnippet?
        if let expression = reading.expressionCandidate {
            // Fails to compile when the text is not one expression (`a; b`, a statement): then it is run as a script.
            if let function = try? engine.compileFunction(
                "(function (\(CompiledSnippet.parameters)) { return (\(expression)\n); })", sourceURL: "snippet.js") {
                made = CompiledSnippet(function: function, code: nil, reading: reading, ownsFunction: true)
            }
        }
        let snippetValue = made ?? CompiledSnippet(function: prelude.statementRunner, code: engine.keptString(code),
                                                   reading: reading, ownsFunction: false)
        if compiled.count >= 4096 {
            for old in compiled.values { old.release(from: engine) }
            compiled.removeAll()
        }
        compiled[snippet.code] = snippetValue
        return snippetValue
    }

    /// Fills the parameters of a compiled snippet: the bindings (only those in `names`, all when nil; the others
    /// are passed as NULL, which JavaScriptCore hands the function as `null`, and the snippet never names them),
    /// then the helper objects.
    func fill(_ arguments: UnsafeMutableBufferPointer<JSValueRef?>, names: [Bool]?, prelude: PreludeFunctions,
              bindings: ScriptBindings, result: RuleValue, context: RuleContext) throws(JSError) {
        func wanted(_ index: Int) -> Bool { names?[index] ?? true }
        func string(_ text: String?) -> JSValueRef? { engine.make(text.map(ScriptValue.string) ?? .null) }
        if wanted(0) {
            if case .text(let text) = result {
                arguments[0] = engine.make(.string(text))
            } else {
                arguments[0] = engine.make(scriptValue(of: result))
                arguments[0] = try engine.transform(prelude.prepareResult, arguments[0])
            }
        }
        if wanted(1) { arguments[1] = engine.make(.string(RuleValue.items([context]).strings.first ?? "")) }
        if wanted(2) { arguments[2] = engine.make(.string(bindings.baseURL)) }
        if wanted(3) { arguments[3] = string(bindings.key) }
        if wanted(4) { arguments[4] = engine.make(bindings.page.map { .number(Double($0)) } ?? .null) }
        if wanted(5) {
            if let book = bindings.book {
                arguments[5] = engine.make(Self.scriptValue(of: book))
                arguments[5] = try engine.transform(prelude.prepareBook, arguments[5])
            } else {
                arguments[5] = engine.make(.null)
            }
        }
        if wanted(6) {
            if let chapter = bindings.chapter {
                arguments[6] = engine.make(Self.scriptValue(of: chapter))
                arguments[6] = try engine.transform(prelude.prepareChapter, arguments[6])
            } else {
                arguments[6] = engine.make(.null)
            }
        }
        if wanted(7) { arguments[7] = string(bindings.title ?? bindings.chapter?.title) }
        if wanted(8) { arguments[8] = string(bindings.nextChapterURL) }
        for (index, helper) in prelude.helpers.enumerated() {
            arguments[SnippetReading.bindingNames.count + index] = helper
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

    /// `book` as a script sees it (before the prelude adds its methods).
    static func scriptValue(of book: ScriptBook) -> ScriptValue {
        .object([
            ("name", .string(book.name)), ("author", .string(book.author)), ("bookUrl", .string(book.bookURL)),
            ("tocUrl", .string(book.tocURL)), ("origin", .string(book.origin)), ("kind", .string(book.kind)),
            ("intro", .string(book.intro)), ("coverUrl", .string(book.coverURL)),
            ("latestChapterTitle", .string(book.latestChapterTitle)), ("wordCount", .string(book.wordCount)),
            ("durChapterTitle", .string(book.durChapterTitle)),
            ("durChapterIndex", .number(Double(book.durChapterIndex))),
            ("totalChapterNum", .number(Double(book.totalChapterNum))),
        ])
    }

    /// `chapter` as a script sees it (before the prelude adds its methods).
    static func scriptValue(of chapter: ScriptChapter) -> ScriptValue {
        .object([
            ("title", .string(chapter.title)), ("url", .string(chapter.url)),
            ("index", .number(Double(chapter.index))), ("baseUrl", .string(chapter.baseURL)),
            ("isVip", .bool(chapter.isVIP)), ("isVolume", .bool(chapter.isVolume)),
        ])
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
            // An empty list is a value, not nothing: Legado hands it to the chain's next step (`null` skips
            // the rest), so it must not read as `.none`, which ends the chain.
            if items.isEmpty { return .items([]) }
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

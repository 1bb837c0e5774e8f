import BookRuleLocking
import Testing
@testable import BookRuleDocument
@testable import BookRuleRules
import TestSupport

/// A stand-in for the JavaScript runtime: each snippet's code names a Swift function of `result`, and every
/// call is recorded, so the tests see exactly what each step was given.
final class FakeScript: ScriptEvaluating {
    let calls = Locked<[(code: String, placement: ScriptSnippet.Placement, result: RuleValue)]>([])
    let functions: [String: @Sendable (RuleValue) -> RuleValue]

    init(_ functions: [String: @Sendable (RuleValue) -> RuleValue]) { self.functions = functions }

    func run(_ snippet: ScriptSnippet, result: RuleValue, in context: RuleContext,
             environment: RuleEnvironment) throws -> RuleValue {
        calls.withLock { $0.append((snippet.code, snippet.placement, result)) }
        guard let function = functions[snippet.code.trimmingASCIIWhitespace()] else {
            throw TestFailure("no fake for \(snippet.code)")
        }
        return function(result)
    }
}

@Suite("Rules that mix rule steps and JavaScript")
struct RuleChainTests {
    static let html = """
    <html><body><ul>
      <li><a href="/1.html">One</a></li>
      <li><a href="/2.html">Two</a></li>
      <li><a href="/3.html">Three</a></li>
    </ul></body></html>
    """

    func environment(_ script: FakeScript?, _ document: HTMLDocument) -> RuleEnvironment {
        RuleEnvironment(baseURL: document.baseURL, script: script)
    }

    @Test("ScriptSplitter cuts @js: (any case, to the end) and every <js>…</js>, keeping the rule parts between")
    func splitting() {
        typealias Part = ScriptSplitter.Part
        #expect(ScriptSplitter.split("//a/@href@JS:result.trim()") == [.rule("//a/@href"), .script("result.trim()", .atJS)])
        #expect(ScriptSplitter.split("<js>a</js>//b<JS>c</JS>##x") == [.script("a", .tag), .rule("//b"), .script("c", .tag), .rule("##x")])
        #expect(ScriptSplitter.split("$.a@js:x<js>y</js>") == [.rule("$.a"), .script("x<js>y</js>", .atJS)])
        #expect(ScriptSplitter.split("<js>unclosed") == [.rule("<js>unclosed")])
        #expect(ScriptSplitter.split("class.a@text") == [.rule("class.a@text")])
    }

    @Test("a string rule's JavaScript step gets the rule step's values joined as one string, and its value is the result")
    func stringChain() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["upper": { .text($0.strings.joined().uppercased()) }])
        let rule = try RuleParser.parse("//a/text()@js:upper", field: "ruleBookInfo.name", kind: .string)
        #expect(rule.dialect == .javaScript)
        let values = try rule.strings(in: .node(document.root), environment: environment(script, document))
        #expect(values == ["ONE\nTWO\nTHREE"])
        let given = script.calls.withLock { $0.map(\.result) }
        guard case .text(let text)? = given.first else { Issue.record("result was \(given)"); return }
        #expect(text == "One\nTwo\nThree")
    }

    @Test("a list rule's JavaScript step gets elements, and the elements it returns are what field rules run in")
    func listChain() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["reverse": { value in
            guard case .items(let items) = value else { return .none }
            return .items(items.reversed())
        }])
        let list = try RuleParser.parse("//li<js>reverse</js>", field: "ruleToc.chapterList", kind: .list)
        let items = try list.elements(in: .node(document.root), environment: environment(script, document))
        let name = try RuleParser.parse("//a/text()", field: "ruleToc.chapterName", kind: .string)
        let names = try items.map { try name.string(in: $0, environment: environment(script, document)) }
        #expect(names == ["Three", "Two", "One"])
    }

    @Test("a rule step after JavaScript reads the markup the script returned")
    func ruleAfterScript() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["make": { _ in .text("<p><b>made</b> here</p>") }])
        let rule = try RuleParser.parse("<js>make</js>//b/text()", field: "ruleContent.content", kind: .string)
        #expect(try rule.strings(in: .node(document.root), environment: environment(script, document)) == ["made"])
    }

    @Test("JavaScript first gets the page source as result; in a list element's field rule, the element itself")
    func initialResult() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["echo": { $0 }])
        let rule = try RuleParser.parse("@js:echo", field: "ruleContent.content", kind: .string)
        _ = try rule.strings(in: .node(document.root), environment: environment(script, document))
        let items = try RuleParser.parse("//li", field: "ruleToc.chapterList", kind: .list)
            .elements(in: .node(document.root), environment: environment(script, document))
        _ = try RuleParser.parse("@js:echo", field: "ruleToc.chapterName", kind: .string)
            .strings(in: items[1], environment: environment(script, document))
        let given = script.calls.withLock { $0.map(\.result) }
        guard case .text(let source)? = given.first, case .item(.node(let node))? = given.last else {
            Issue.record("results were \(given)")
            return
        }
        #expect(source.contains("<ul>"))
        #expect(node.stringValue.contains("Two"))
    }

    @Test("a script that gives an empty list does not end the chain: the next step gets the empty list")
    func emptyListGoesOn() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["empty": { _ in .items([]) }, "count": { value in
            guard case .items(let items) = value else { return .text("not items") }
            return .text("after:\(items.count)")
        }])
        let rule = try RuleParser.parse("<js>empty</js>@js:count", field: "f", kind: .string)
        #expect(try rule.strings(in: .node(document.root), environment: environment(script, document)) == ["after:0"])
        let ruleStep = try RuleParser.parse("<js>empty</js>//a/text()", field: "f", kind: .string)
        #expect(try ruleStep.strings(in: .node(document.root), environment: environment(script, document)).joined() == "")
    }

    @Test("a script that gives nothing ends the chain with nothing; the later steps do not run")
    func nullEnds() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["nothing": { _ in .none }, "never": { _ in .text("ran") }])
        let rule = try RuleParser.parse("<js>nothing</js>//a<js>never</js>", field: "f", kind: .string)
        #expect(try rule.strings(in: .node(document.root), environment: environment(script, document)).isEmpty)
        #expect(script.calls.withLock { $0.count } == 1)
    }

    @Test("a list rule whose script returns a JSON array string lists the array's objects for field rules")
    func jsonArrayString() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["list": { _ in .text(#"[{"name":"甲"},{"name":"乙"}]"#) }])
        let items = try RuleParser.parse("@js:list", field: "ruleSearch.bookList", kind: .list)
            .elements(in: .node(document.root), environment: environment(script, document))
        let name = try RuleParser.parse("name", field: "ruleSearch.name", kind: .string)
        #expect(try items.map { try name.string(in: $0, environment: environment(script, document)) } == ["甲", "乙"])
    }

    @Test("{{…}} that is not a rule is JavaScript inside a template; {{@…}} and {{//…}} stay rules")
    func templateScripts() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["1+1": { _ in .text("2") }])
        let rule = try RuleParser.parse("https://site.test/book/{{1+1}}/{{//li[1]/a/text()}}.html", field: "ruleToc.chapterUrl", kind: .string)
        #expect(try rule.strings(in: .node(document.root), environment: environment(script, document)) == ["https://site.test/book/2/One.html"])
        #expect(rule.scripts.map(\.placement) == [.template])
    }

    @Test("Rule.scripts lists every snippet with its placement, for checking at load")
    func listsScripts() throws {
        let rule = try RuleParser.parse("<js>a</js>//b@js:c", field: "ruleContent.content", kind: .string)
        #expect(rule.scripts.map(\.code) == ["a", "c"])
        #expect(rule.scripts.map(\.placement) == [.tag, .atJS])
        #expect(rule.scripts.allSatisfy { $0.field == "ruleContent.content" })
    }

    @Test("without a script runtime a JavaScript step fails naming the field")
    func noRuntime() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let rule = try RuleParser.parse("//a@js:x", field: "ruleToc.chapterName", kind: .string)
        #expect {
            try rule.strings(in: .node(document.root), environment: environment(nil, document))
        } throws: { error in
            (error as? RuleError)?.field == "ruleToc.chapterName" && "\(error)".contains("script runtime")
        }
    }

    @Test("a script step is cut at ## as Legado cuts every step: the replacement runs on the script's result")
    func scriptThenReplacement() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["make": { _ in .text("第十二章 (VIP) 风起") }])
        let rule = try RuleParser.parse("@js:make##\\s*\\(VIP\\)##", field: "ruleToc.chapterName", kind: .string)
        #expect(rule.scripts.map(\.code) == ["make"])
        #expect(try rule.strings(in: .node(document.root), environment: environment(script, document)) == ["第十二章 风起"])
    }

    @Test("@put:{…} in the rule part before the JavaScript is stored, as in any rule")
    func putBeforeScript() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeScript(["echo": { $0 }])
        let rule = try RuleParser.parse(#"@put:{"first":"//li[1]/a/text()"}//li[2]/a/text()@js:echo"#, field: "ruleBookInfo.name", kind: .string)
        let environment = environment(script, document)
        #expect(try rule.strings(in: .node(document.root), environment: environment) == ["Two"])
        #expect(environment.variables["first"] == "One")
    }

    /// Community sources write `@put:{bid:id}` without quotes; Legado reads it with Gson's lenient reader.
    @Test("@put:{key:rule} without quotes is read as Legado reads it")
    func putWithoutQuotes() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let rule = try RuleParser.parse("@put:{first:tag.li.0@tag.a@text}tag.li.1@tag.a@text", field: "ruleBookInfo.name",
                                        kind: .string)
        let environment = environment(FakeScript([:]), document)
        #expect(try rule.strings(in: .node(document.root), environment: environment) == ["Two"])
        #expect(environment.variables["first"] == "One")
    }
}

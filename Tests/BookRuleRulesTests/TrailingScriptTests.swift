import BookRuleLocking
import Testing
@testable import BookRuleDocument
@testable import BookRuleRules
import TestSupport

/// A stand-in for a runtime that runs one snippet for many results: each snippet's code names a Swift
/// function of the result text; `runEach` calls are recorded, and a result named in `stopBefore` ends the
/// run before it (as a limit would).
final class FakeEachScript: ScriptEachEvaluating {
    let eachCalls = Locked<[[String]]>([])
    let functions: [String: @Sendable (String) throws -> RuleValue]
    let stopBefore: String?

    init(_ functions: [String: @Sendable (String) throws -> RuleValue], stopBefore: String? = nil) {
        self.functions = functions
        self.stopBefore = stopBefore
    }

    func run(_ snippet: ScriptSnippet, result: RuleValue, in context: RuleContext,
             environment: RuleEnvironment) throws -> RuleValue {
        guard let function = functions[snippet.code] else { throw TestFailure("no fake for \(snippet.code)") }
        return try function(result.strings.joined(separator: "\n"))
    }

    func runsEach(_ snippet: ScriptSnippet) -> Bool { functions[snippet.code] != nil }

    func runEach(_ snippet: ScriptSnippet, results: [String], environment: RuleEnvironment) -> [Result<RuleValue, any Error>]? {
        guard let function = functions[snippet.code] else { return nil }
        eachCalls.withLock { $0.append(results) }
        var outcomes: [Result<RuleValue, any Error>] = []
        for result in results {
            if result == stopBefore { break }
            outcomes.append(Result { try function(result) })
        }
        return outcomes
    }
}

@Suite("Rules ending in JavaScript, read for every element of a list at once")
struct TrailingScriptTests {
    static let html = """
    <html><body><ul>
      <li><a href="/1.html">One</a></li>
      <li><a href="/2.html"></a></li>
      <li><a href="/3.html">Bad</a></li>
      <li><a href="/4.html">Four</a></li>
    </ul></body></html>
    """

    @Test("which rules have a trailing script: rule steps without JavaScript, then one JavaScript step")
    func detection() throws {
        func trailing(_ text: String) throws -> String? {
            try RuleParser.parse(text, field: "ruleToc.chapterName", kind: .string).trailingScript?.code
        }
        #expect(try trailing("//a/text()@js:result.trim()") == "result.trim()")
        #expect(try trailing("a@text@js:result.trim()") == "result.trim()")
        #expect(try trailing("//a/text()<js>result.trim()</js>") == "result.trim()")
        #expect(try trailing("//a/text()") == nil)
        #expect(try trailing("@js:result.text()") == nil, "no rule step: result is the element")
        #expect(try trailing("<js>result</js>//a/text()") == nil)
        #expect(try trailing("//a/text()<js>a</js>//b/text()@js:b") == nil, "JavaScript before the last step")
        #expect(try trailing("//a/text()@js:'{{result}}'") == nil, "a templated script")
        #expect(try trailing(#"@put:{"k":"//a/@href"}//a/text()@js:x"#) == nil, "@put")
        #expect(try trailing(#"//a/text()@js:x"#) == "x")
        #expect(try RuleParser.parse("//li@js:result", field: "ruleToc.chapterList", kind: .list).trailingScript == nil)
    }

    @Test("every element's values as one by one, in one runEach; an element's error wrapped as the rule's")
    func sameAsOneByOne() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeEachScript(["tidy": { text in
            if text == "Bad" { throw TestFailure("bad one") }
            return text.isEmpty ? .none : .texts([text.uppercased(), text])
        }])
        let environment = RuleEnvironment(baseURL: document.baseURL, script: script)
        let list = try RuleParser.parse("//li", field: "ruleToc.chapterList", kind: .list)
        let items = try list.elements(in: .node(document.root), environment: environment)
        let rule = try RuleParser.parse("//a/text()@js:tidy", field: "ruleToc.chapterName", kind: .string)
        let together = try #require(rule.textsOfEach(items, environment: environment))
        let oneByOne = items.map { item in Result { () throws(RuleError) in try rule.texts(in: item, environment: environment) } }
        #expect(together.count == 4)
        #expect(together.map(Self.summary) == oneByOne.map(Self.summary))
        #expect(together.map(Self.summary) == ["ONE|One", "", "error: ruleToc.chapterName (JavaScript): bad one", "FOUR|Four"])
        #expect(script.eachCalls.withLock { $0 } == [["One", "", "Bad", "Four"]])
    }

    @Test("a run cut short gives the outcomes before the cut only, for the caller to read the rest one by one")
    func cutShort() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let script = FakeEachScript(["tidy": { .text($0) }], stopBefore: "Bad")
        let environment = RuleEnvironment(baseURL: document.baseURL, script: script)
        let items = try RuleParser.parse("//li", field: "ruleToc.chapterList", kind: .list)
            .elements(in: .node(document.root), environment: environment)
        let rule = try RuleParser.parse("//a/text()@js:tidy", field: "ruleToc.chapterName", kind: .string)
        let together = try #require(rule.textsOfEach(items, environment: environment))
        #expect(together.map(Self.summary) == ["One", ""])
    }

    @Test("a script that cannot run for all, or none given: nil, read one by one")
    func notBatched() throws {
        let document = try page(Self.html, url: "https://site.test/b/")
        let rule = try RuleParser.parse("//a/text()@js:other", field: "ruleToc.chapterName", kind: .string)
        let script = FakeEachScript(["tidy": { .text($0) }])
        #expect(rule.textsOfEach([.node(document.root)], environment: RuleEnvironment(baseURL: document.baseURL, script: script)) == nil)
        #expect(rule.textsOfEach([.node(document.root)], environment: RuleEnvironment(baseURL: document.baseURL)) == nil)
    }

    static func summary(_ outcome: Result<[RuleText], RuleError>) -> String {
        switch outcome {
        case .success(let values): return values.map(\.text).joined(separator: "|")
        case .failure(let error): return "error: \(error.description)"
        }
    }
}

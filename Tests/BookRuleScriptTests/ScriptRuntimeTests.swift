import BookRuleJSON
import BookRuleRules
import BookRuleScript
import Testing
import TestSupport

@Suite("Script runtime: evaluation, values, isolation")
struct ScriptRuntimeTests {
    let runtime: ScriptRuntime

    init() throws {
        runtime = try ScriptRuntime(jsLib: "function double(x) { return x * 2 }\nvar libValue = 'lib'",
                                    host: RecordingScriptHost())
    }

    @Test("the completion value is the result, without return")
    func completionValue() throws {
        #expect(try runtime.run("1 + 2").summary == "text(3)")
        #expect(try runtime.run("if (true) { 'a' } else { 'b' }").summary == "text(a)")
        #expect(try runtime.run("var x = 'v'; x + '!'").summary == "text(v!)")
        #expect(try runtime.run("2.5").summary == "text(2.5)")
        #expect(try runtime.run("true").summary == "text(true)")
        #expect(try runtime.run("1e21").summary == "text(1e+21)")
    }

    @Test("strings cross into a script and back unchanged: ASCII, CJK, a surrogate pair; a lone surrogate is U+FFFD")
    func stringsRoundTrip() throws {
        for text in ["", "a", "é ß", "第一章 开始", "“引号”", "😀 emoji 𠀀", "\u{7F}\u{80}\u{7FF}\u{800}\u{FFFF}\u{10000}\u{10FFFF}"] {
            #expect(try runtime.text("result", result: .text(text)) == text)
            #expect(try runtime.text("result.length", result: .text(text)) == String(text.utf16.count))
        }
        #expect(try runtime.text("'\\u4e2d' + String.fromCharCode(0xD83D, 0xDE00)") == "中😀")
        #expect(try runtime.text("'a' + String.fromCharCode(0xD800) + 'b' + String.fromCharCode(0xDC00)") == "a\u{FFFD}b\u{FFFD}")
    }

    @Test("values convert: arrays of strings to texts, objects to JSON items, null to none")
    func conversions() throws {
        #expect(try runtime.run("['a', 'b']").summary == "texts(a|b)")
        #expect(try runtime.run("null").summary == "texts()")
        #expect(try runtime.run("undefined").summary == "texts()")
        guard case .items(let items) = try runtime.run("[{name: 'x', n: 1}, {name: 'y'}]") else {
            Issue.record("expected items")
            return
        }
        #expect(items.count == 2)
        guard case .json(let first) = items[0] else { Issue.record("expected JSON"); return }
        #expect(first.serialized() == #"{"name":"x","n":1}"#)
    }

    @Test("result arrives typed: text, texts with Java list methods, one JSON object")
    func resultBinding() throws {
        #expect(try runtime.text("result.replace(/a/g, 'b')", result: .text("banana")) == "bbnbnb")
        #expect(try runtime.text("result.size() + ':' + result.get(1) + ':' + result.length", result: .texts(["x", "y"])) == "2:y:2")
        let json = try JSONParser.parse(#"{"title":"T","list":[1,2]}"#).value
        #expect(try runtime.text("result.title + JSON.parse(result).list.length", result: .items([.json(json)])) == "T2")
        #expect(try runtime.text("src", context: .text("raw")) == "raw")
    }

    @Test("jsLib is visible to every snippet; a snippet's declarations do not leak into the next")
    func isolation() throws {
        #expect(try runtime.text("double(21)") == "42")
        #expect(try runtime.text("const a = 1; let b = 2; var c = 3; function f() { return 4 }; a + b + c + f()") == "10")
        #expect(try runtime.text("const a = 5; a") == "5")
        #expect(try runtime.text("typeof c + typeof f + typeof b") == "undefinedundefinedundefined")
        #expect(try runtime.text("leaked = 1; leaked") == "1")
        #expect(try runtime.text("typeof leaked") == "undefined")
        #expect(try runtime.text("this.libValue + double(1)") == "lib2")
    }

    @Test("a snippet that overwrites a helper or a binding leaves the next snippet its own")
    func overwrittenGlobals() throws {
        let runtime = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost())
        // Statements (the eval path) and one expression (the compiled path), then through the global object.
        #expect(try runtime.text("java = 1; result = 'x'; var source = 1; cookie = null; String(java) + result + source",
                                 result: .text("r")) == "1x1")
        #expect(try runtime.text("typeof java.ajax + typeof source.getKey + typeof cookie.getCookie + result",
                                 result: .text("r")) == "functionfunctionfunctionr")
        #expect(try runtime.text("(java = 2, result = 'y', cache = 3)") == "3")
        #expect(try runtime.text("typeof java.ajax + typeof cache.get + result.length") == "functionfunction0")
        #expect(try runtime.text("this.java = 3; globalThis.source = 4; 'ok'") == "ok")
        #expect(try runtime.text("typeof java.ajax + typeof source.getKey") == "functionfunction")
        // With a jsLib whose functions read the bindings as globals.
        let withLib = try ScriptRuntime(jsLib: "function given() { return result }", host: RecordingScriptHost())
        #expect(try withLib.text("result = 'changed'; given() + '|' + result", result: .text("A")) == "A|changed")
        #expect(try withLib.text("given()", result: .text("B")) == "B")
        #expect(try withLib.text("typeof java.ajax", result: .text("B")) == "function")
    }

    @Test("a jsLib constant named like a binding does not hide the binding from snippets")
    func jsLibConstantsDoNotShadowBindings() throws {
        let runtime = try ScriptRuntime(jsLib: "const key = 'lib'; let page = 9; var baseUrl = 'x'; function libKey() { return key }",
                                        host: RecordingScriptHost())
        let bindings = ScriptBindings(key: "word", page: 2, baseURL: "https://b.example/")
        #expect(try runtime.text("[key, page, baseUrl].join('|')", bindings: bindings) == "word|2|https://b.example/")
        #expect(try runtime.text("var s = key + page; s", bindings: bindings) == "word2")
        // jsLib's own functions see jsLib's constant, as they see their shared scope in Legado.
        #expect(try runtime.text("libKey()", bindings: bindings) == "lib")
    }

    @Test("an empty array is a value further steps get (null ends the chain)")
    func emptyArray() throws {
        #expect(try runtime.run("[]").summary == "items(0)")
        let environment = RuleEnvironment(baseURL: "", script: ScriptScope(runtime: runtime, bindings: ScriptBindings()))
        let afterEmpty = try RuleParser.parse("<js>[]</js>@js:'after:' + result.length", field: "f", kind: .string)
        #expect(try afterEmpty.strings(in: .text("x"), environment: environment) == ["after:0"])
        let afterNull = try RuleParser.parse("<js>null</js>@js:'after'", field: "f", kind: .string)
        #expect(try afterNull.strings(in: .text("x"), environment: environment).isEmpty)
        let list = try RuleParser.parse("@js:[]", field: "ruleToc.chapterList", kind: .list)
        #expect(try list.elements(in: .text("x"), environment: environment).isEmpty)
    }

    /// Legado makes up a JavaScript rule before running it: `{{…}}` and `@get:{key}` in the code are replaced
    /// by their values first (community sources splice a chapter title into a regex literal this way).
    @Test("{{…}} and @get:{key} inside JavaScript are substituted before it runs")
    func templatesInsideJavaScript() throws {
        let variables = RuleVariables()
        variables["cut"] = "二"
        let bindings = ScriptBindings(title: "第二章 风起")
        let environment = RuleEnvironment(baseURL: "", variables: variables,
                                          script: ScriptScope(runtime: runtime, bindings: bindings))
        // A title spliced into a regex literal: without the substitution the literal would not even parse.
        let regex = try RuleParser.parse(#"@js:result.replace(/{{title.split(" ")[1]}}\s*/, "")"#,
                                         field: "ruleContent.content", kind: .string)
        #expect(try regex.strings(in: .text("风起 正文"), environment: environment) == ["正文"])
        // The {{…}} of JavaScript sees the step's result; numbers go in as JavaScript prints them.
        let fromResult = try RuleParser.parse(#"@js:"{{result.length * 2}}|{{1 + 2}}|@get:{cut}""#, field: "f", kind: .string)
        #expect(try fromResult.strings(in: .text("abc"), environment: environment) == ["6|3|二"])
        // What is checked at load is the code with each hole as 0.
        #expect(regex.scripts.map(\.code) == [#"result.replace(/0\s*/, "")"#, #"title.split(" ")[1]"#])
    }

    /// Rhino skips format characters (U+200B and friends) in code; sources copied from web pages carry them.
    @Test("a zero-width space in code is skipped as Rhino skips it, and kept inside a string")
    func formatCharactersInCode() throws {
        let code = "var a\u{200B} = 'x\u{200B}y';\u{FEFF} a.length"
        #expect(ScriptRuntime.checkSyntax(code) == nil)
        #expect(try runtime.text(code) == "3")
        // Code that is broken without them too still reports its own error.
        #expect(ScriptRuntime.checkSyntax("var \u{200B} = ;") != nil)
    }

    @Test("a snippet is compiled once as an expression or run as statements, with the same completion value")
    func expressionAndStatements() throws {
        #expect(try runtime.text("result.trim();", result: .text(" a ")) == "a")
        #expect(try runtime.text("{}") == "")
        #expect(try runtime.text("{a: 1}") == "1")
        #expect(try runtime.text("function f() { return 1 }") == "")
        #expect(try runtime.text("/* c */ {b: 2}") == "2")
        #expect(try runtime.text("1\n+ 2 // three;") == "3")
        #expect(try runtime.text("var a = 1\n++a") == "2")
        #expect(try runtime.text("x = 5; x * 2") == "10")
        #expect(try runtime.text("typeof x") == "undefined")
        #expect(try runtime.text("y = 7") == "7")
        #expect(try runtime.text("typeof y") == "undefined")
        #expect(try runtime.text("for (k in {p: 1}) {}; typeof k") == "string")
        #expect(try runtime.text("typeof k") == "undefined")
        #expect(try runtime.text("src.length", context: .text("four")) == "4")
        do {
            _ = try runtime.run("1 +\nnope")
            Issue.record("expected an error")
        } catch let error as ScriptError {
            #expect(error == .thrown(field: "test", message: "ReferenceError: Can't find variable: nope", line: 2))
        }
    }

    @Test("a syntax error names the field, line and column")
    func syntaxError() throws {
        let error = ScriptRuntime.checkSyntax("var a = 1;\nvar b = (2;\n")
        #expect(error?.line == 2)
        #expect(error?.column == 11)
        #expect(error?.message.contains("SyntaxError") == true)
        #expect(ScriptRuntime.checkSyntax("if (x) { 'a' } else { 'b' }") == nil)
        #expect(throws: ScriptError.self) { try runtime.run("var = 1") }
        do {
            _ = try runtime.run("1 +\n+ (")
            Issue.record("expected a syntax error")
        } catch let error as ScriptError {
            guard case .syntax(let field, let syntax) = error else { Issue.record("\(error)"); return }
            #expect(field == "test")
            #expect(syntax.line == 2)
        }
    }

    @Test("a thrown error names the field and line")
    func thrownError() throws {
        do {
            _ = try runtime.run("var a = 1;\nthrow new Error('boom')")
            Issue.record("expected an error")
        } catch let error as ScriptError {
            #expect(error == .thrown(field: "test", message: "Error: boom", line: 2))
            #expect(error.description.contains("test"))
        }
    }

    @Test("an endless loop is stopped within the limit, and the runtime stays usable", .tags(.realTime))
    func endlessLoop() throws {
        let limited = try ScriptRuntime(jsLib: nil, limits: ScriptLimits(timeLimit: .milliseconds(200)),
                                        host: RecordingScriptHost())
        let clock = ContinuousClock()
        let start = clock.now
        #expect(throws: ScriptError.timeLimit(field: "test", limit: .milliseconds(200))) {
            try limited.run("while (true) {}")
        }
        // CPU time on a loaded machine runs slower than wall time; the bound is generous but finite.
        #expect(clock.now - start < TestTime.bound(.seconds(20)))
        #expect(try limited.text("'still ' + 'here'") == "still here")
        #expect(throws: ScriptError.self) { try limited.run("for (;;) { try { while (true) {} } catch (e) {} }") }
        #expect(try limited.text("1") == "1")
    }

    @Test("a runaway heap is stopped")
    func heapLimit() throws {
        let limited = try ScriptRuntime(jsLib: nil, limits: ScriptLimits(timeLimit: .seconds(30), heapLimit: 64 << 20),
                                        host: RecordingScriptHost())
        #expect(throws: ScriptError.heapLimit(field: "test", limit: 64 << 20)) {
            try limited.run("var a = []; while (true) { a.push('x'.repeat(1000) + a.length) }")
        }
        #expect(try limited.text("'ok'") == "ok")
    }

    @Test("a jsLib that does not parse is an error naming jsLib")
    func badJSLib() {
        #expect(throws: ScriptError.self) { try ScriptRuntime(jsLib: "function (", host: RecordingScriptHost()) }
        do {
            _ = try ScriptRuntime(jsLib: "throw new Error('lib failed')", host: RecordingScriptHost())
        } catch {
            #expect(error.field == "jsLib")
        }
    }

    @Test("runtimes on several threads evaluate concurrently")
    func concurrency() async throws {
        let runtime = runtime
        try await withThrowingTaskGroup(of: String.self) { group in
            for index in 0..<16 {
                group.addTask { try runtime.text("double(\(index))") }
            }
            var results: Set<String> = []
            for try await value in group { results.insert(value) }
            #expect(results.count == 16)
        }
    }
}

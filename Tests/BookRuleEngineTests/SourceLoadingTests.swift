import Testing
import BookRuleDocument
@testable import BookRuleEngine
@testable import BookRuleRules
import TestSupport

@Suite("Loading source files")
struct SourceLoadingTests {
    @Test("malformed JSON names file, line and column")
    func malformed() {
        let text = "[\n  {\n    \"bookSourceUrl\": \"https://x.test\",\n    \"ruleToc\": {\"chapterList\": \"//a\",}\n  }\n]"
        #expect(throws: SourceFileError.self) { try BookSource.load(bytes: Array(text.utf8), path: "bad.json") }
        do {
            _ = try BookSource.load(bytes: Array(text.utf8), path: "bad.json")
        } catch {
            #expect(error.description == "bad.json:4:37: invalid JSON: trailing comma is not allowed; remove this ',' before '}'")
        }
    }

    @Test("a file holding one object or an array both load; array problems carry the index")
    func objectOrArray() throws {
        let one = try BookSource.load(bytes: Array(#"{"bookSourceUrl":"https://a.test"}"#.utf8), path: "a.json")
        #expect(one.count == 1 && one[0].problems.isEmpty)
        let many = try BookSource.load(bytes: Array(#"[{"bookSourceUrl":"https://a.test"},{"bookSourceUrl":"https://b.test","ruleToc":{"chapterList":"@js:java.readFile('/etc/passwd')"}}]"#.utf8), path: "b.json")
        #expect(many.count == 2)
        #expect(many[1].problems.map(\.field) == ["[1].ruleToc.chapterList"])
        #expect(many[1].problems.first?.reason.contains("java.readFile") == true, "\(many[1].problems)")
        #expect(many[1].origin.description == "b.json[1]")
    }

    @Test("wrong types are problems with a path, not crashes")
    func wrongTypes() throws {
        let sources = try BookSource.load(bytes: Array(#"{"bookSourceUrl":"https://a.test","ruleToc":5,"ruleSearch":{"name":["x"]}}"#.utf8), path: "c.json")
        #expect(sources[0].problems.map(\.description) == [
            "ruleSearch.name: expected a rule string, found array",
            "ruleToc: expected an object or a JSON string, found number",
        ])
    }

    @Test("a file that is not a source says what it found")
    func notASource() {
        do {
            _ = try BookSource.load(bytes: Array("  \"hello\"".utf8), path: "d.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "d.json:1:3: expected a book source object or an array of them, found string")
        }
    }

    @Test("a missing file is a readable error")
    func missingFile() {
        do {
            _ = try BookSource.load(contentsOf: "/nonexistent/source.json")
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "/nonexistent/source.json: cannot read the file: No such file or directory")
        }
    }
}

@Suite("Hostile or malformed sources fail cleanly")
struct HostileSourceTests {
    @Test("deeply nested templates are refused at load instead of exhausting the stack")
    func deepTemplates() {
        let rule = String(repeating: "{{@", count: 5000) + String(repeating: "}}", count: 5000)
        #expect(throws: RuleError.self) { try RuleParser.parse(rule, field: "ruleSearch.bookUrl", kind: .string) }
    }

    @Test("an XPath function that only fails when run (XPath 2's ends-with) is caught at load")
    func unknownFunction() {
        do {
            _ = try RuleParser.parse("//a[ends-with(@href,'.html')]/@href", field: "ruleToc.chapterUrl", kind: .string)
            Issue.record("expected an error")
        } catch {
            #expect(error.description == "ruleToc.chapterUrl (XPath): ends-with() is not an XPath 1.0 function")
        }
    }

    @Test("page arithmetic that overflows gives 0 instead of trapping")
    func pageOverflow() throws {
        // 65536^3 * 32768 wraps to Int.min; Int.min / -1 would trap.
        let template = try URLTemplate("/s?o={{65536*65536*65536*32768/-1}}", field: "searchUrl")
        #expect(try template.request(page: 1, baseURL: "https://a.test/").url == "https://a.test/s?o=0")
    }

    @Test("a non-object in a source array is named; string booleans and unknown types are read or reported")
    func arrayElementsAndTypes() throws {
        let sources = try BookSource.load(bytes: Array(#"[[1], {"bookSourceUrl":"https://a.test","enabledCookieJar":"false","bookSourceType":7,"concurrentRate":"fast"}]"#.utf8), path: "x.json")
        #expect(sources[0].problems.map(\.description) == ["[0]: expected a book source object, found array"])
        #expect(sources[1].enabledCookieJar == false)
        #expect(sources[1].problems.map(\.field) == ["[1].bookSourceType", "[1].concurrentRate"])
    }

    @Test("a key in a charset that cannot hold it becomes one ? per character")
    func unrepresentableKey() throws {
        #expect(try URLEncoding.component("a😀b", charset: "GB2312") == "a%3Fb")
    }

    @Test("rules that run but read in a dialect their author did not mean are warnings with the spelling that does")
    func misreadingWarnings() throws {
        let source = try loadSource(#"""
            {"bookSourceUrl": "https://a.test", "bookSourceName": "misread",
             "ruleToc": {"chapterList": "//dd/a", "chapterName": "text()", "chapterUrl": "a/@href"},
             "ruleContent": {"content": "//div", "replaceRegex": "^上一页<$"}}
            """#)
        #expect(source.problems.isEmpty)
        #expect(source.toc[.chapterName] != nil, "a warning keeps the rule")
        let warnings = source.warnings.map(\.description)
        #expect(warnings.count == 3, "\(warnings)")
        #expect(warnings.contains { $0.hasPrefix("ruleToc.chapterName") && $0.contains("\"//text()\"") })
        #expect(warnings.contains { $0.hasPrefix("ruleToc.chapterUrl") && $0.contains("\"//a/@href\"") })
        #expect(warnings.contains { $0.hasPrefix("ruleContent.replaceRegex") && $0.contains("##^上一页<$") })
        // The label is the dialect the warning is about (JSoup, Legado's default), not the JSONPath the parser
        // falls back to for a path no selector can be made of (issue #32: "(JSONPath): … is read as a JSoup rule").
        #expect(source.warnings.filter { $0.field.hasPrefix("ruleToc.") }.allSatisfy { $0.dialect == .jsoup },
                "\(source.warnings.map { "\($0.field) \(String(describing: $0.dialect))" })")
    }

    @Test("the fields of an AllInOne list are $n templates, not misread JSoup: the shipped example lints without warnings")
    func allInOneFieldsAreNotMisread() throws {
        let path = SharedCorpus.repositoryRoot + "/Sources-json/example-allinone.json"
        let source = try #require(try BookSource.load(contentsOf: path).first)
        #expect(source.problems.isEmpty)
        #expect(source.warnings.isEmpty, "\(source.warnings.map(\.description))")
        #expect(RuleMisreading.warning(for: "http://x.test/txt/@get:{bid}/$1.html", kind: .groupField) == nil)
        #expect(RuleMisreading.warning(for: "a/@href", kind: .groupField) == nil)
    }
}

@Suite("login fields as community sources write them")
struct LoginRulesTests {
    private func source(_ members: String) throws -> BookSource {
        try #require(try BookSource.load(bytes: Array("{\"bookSourceUrl\": \"https://a.test\", \(members)}".utf8), path: "s.json").first)
    }

    @Test("loginUrl: a URL, @js:, <js>…</js>, plain code defining login(), and {\"url\": \"\"} as none")
    func loginURLForms() throws {
        guard case .url(let template)? = try source(#""loginUrl": "/login.php""#).login.action else {
            Issue.record("a path is a URL")
            return
        }
        #expect(template.text == "/login.php")
        guard case .script(let code)? = try source(#""loginUrl": "@js:function login() {}""#).login.action else {
            Issue.record("@js: is a script")
            return
        }
        #expect(code == "function login() {}")
        guard case .script(let tagged)? = try source(#""loginUrl": "<js>function login() {}</js>""#).login.action else {
            Issue.record("<js> is a script")
            return
        }
        #expect(tagged == "function login() {}")
        guard case .script? = try source(#""loginUrl": "var a = 1;\nfunction login() { java.log(a) }""#).login.action else {
            Issue.record("plain code is a script")
            return
        }
        #expect(try source(#""loginUrl": "{\n  \"url\": \"null\"\n}""#).login.action == nil)
        #expect(try source(#""loginUrl": "{\"url\": \"\"}""#).login.canLogIn == false)
    }

    @Test("loginUi read leniently (unquoted names, single quotes) into fields and buttons; a bad one is a problem naming loginUi")
    func loginUIForms() throws {
        let rules = try source(#""loginUi": "[{name: '账号', type: 'text'}, {name: '密码', type: 'password'}, {name: '取码', type: 'button', action: 'getCode()'}, {name: '说明', type: 'button'}]", "loginUrl": "function login() {}""#).login
        #expect(rules.inputs == [LoginField(name: "账号", kind: .text), LoginField(name: "密码", kind: .password)])
        #expect(rules.buttons == [LoginField(name: "取码", kind: .button, action: "getCode()")])
        let broken = try source(#""loginUi": "not json""#)
        #expect(broken.problems.map(\.field) == ["loginUi"])
    }

    @Test("a login script naming a browser helper runs (a warning); a syntax error or a check with Java is a problem")
    func loginScriptChecks() throws {
        let browser = try source(#""loginUrl": "function login() {} function open() { java.startBrowserDp('https://a.test', 'x') }""#)
        #expect(browser.problems.isEmpty && browser.login.canLogIn)
        #expect(browser.warnings.contains { $0.field == "loginUrl" && $0.reason.contains("startBrowserDp") })
        let syntax = try source(#""loginUrl": "function login( {""#)
        #expect(syntax.problems.map(\.field) == ["loginUrl"] && !syntax.login.canLogIn)
        let check = try source(#""loginCheckJs": "java.initUrl(); java.getStrResponse()""#)
        #expect(check.problems.isEmpty && check.login.checkScript != nil)
        let java = try source(#""loginCheckJs": "Packages.io.legado.app.help.http.StrResponse(result.url(), '')""#)
        #expect(java.problems.map(\.field) == ["loginCheckJs"] && java.login.checkScript == nil)
        #expect(try source(#""loginCheckJs": "result""#).hasScripts)
    }
}

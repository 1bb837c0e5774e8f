import BookRuleRules
import BookRuleScript
import Foundation
import Testing

@Suite("Script sandbox, determinism and re-entrancy")
struct ScriptSandboxTests {
    @Test("files, Java classes and reflection are refused with the reason")
    func refusals() throws {
        let runtime = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost())
        let cases: [(String, String)] = [
            ("java.readFile('/etc/passwd')", "sources may not read or write files"),
            ("java.downloadFile('https://x')", "sources may not read or write files"),
            ("java.importScript('x.js')", "may not load code"),
            ("Packages.java.lang.Runtime.getRuntime()", "Packages.java is refused: Java classes are not available"),
            ("java.io.File", "java.io is refused"),
            ("java.lang.Thread.sleep(1)", "java.lang is refused"),
            ("new JavaImporter(java.io)", "refused"),
            ("importClass(Packages.java.io.File)", "refused"),
            ("org.json.JSONObject", "org.json is refused"),
            ("javax.crypto.Cipher", "javax.crypto is refused"),
            ("java.getClass()", "getClass is refused"),
            ("require('fs')", "require is refused"),
            ("java.startBrowserAwait('https://x', 't')", "java.startBrowserAwait needs a browser"),
            ("java.webView('', 'https://x', '')", "java.webView needs a browser"),
            ("java.getVerificationCode('https://x/code.png')", "needs a person"),
        ]
        for (code, expected) in cases {
            do {
                _ = try runtime.run(code)
                Issue.record("\(code) ran")
            } catch let error as ScriptError {
                #expect(error.description.contains(expected), "\(code): \(error)")
            }
        }
        #expect(try runtime.text("typeof readFile + typeof Packages + typeof org.jsoup.Jsoup.parse") == "functionfunctionfunction")
    }

    @Test("unsupportedHelpers names browser, person, file and missing helpers without running anything")
    func lint() {
        let problems = ScriptRuntime.unsupportedHelpers(in: """
            var r = java.showBrowser(url, 't'); java.getVerificationCode(img); java.readTxtFile('a');
            java.ajax(u); java.queryTTF(x); java.qread(); Packages.java.lang.Thread; org.jsoup.Jsoup.parse(h);
            java.webView(a, b, c); java.webView(a, b, c); java.startBrowserAwait(u, 't'); java.startBrowser(u, 't')
            """)
        // java.webView and the verification pages are rendered by headless Chromium, and java.queryTTF reads
        // fonts: not problems.
        #expect(problems.map(\.name) == ["java.showBrowser", "java.getVerificationCode", "java.readTxtFile",
                                         "java.qread", "Packages"])
        #expect(problems.map(\.kind) == [.needsBrowser, .needsPerson, .refused, .notImplemented, .refused])
        #expect(problems[0].reason == "java.showBrowser needs a browser window a person looks at, which bookrule does not show")
        #expect(ScriptRuntime.unsupportedHelpers(in: "java.ajax(x); java.md5Encode(y); 'a.org.cn'").isEmpty)
    }

    @Test("under a fixed clock, Date, Math.random, timeFormat and randomUUID repeat exactly")
    func determinism() throws {
        let code = "[Date.now(), new Date().toISOString(), Math.random(), Math.random(), java.randomUUID(), java.timeFormat(Date.now())].join('|')"
        let host = RecordingScriptHost(clock: .fixed(epochMilliseconds: 1_700_000_000_000, seed: 42))
        let first = try ScriptRuntime(jsLib: nil, host: host)
        let second = try ScriptRuntime(jsLib: nil, host: host)
        let once = try first.text(code)
        #expect(try first.text(code) == once)
        #expect(try second.text(code) == once)
        #expect(once.hasPrefix("1700000000000|2023-11-14T22:13:20.001Z|"))
        let other = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost(clock: .fixed(epochMilliseconds: 1_700_000_000_000, seed: 7)))
        #expect(try other.text(code) != once)
        let live = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost())
        #expect(try live.text("Math.random() === Math.random()") == "false")
        #expect(try live.text("Date.now() > 1700000000000") == "true")
    }

    @Test("a host call evaluating JavaScript on the same runtime runs inline, nested, and restores the caller's globals")
    func reentrancy() throws {
        let box = RuntimeBox()
        let host = RecordingScriptHost(responses: ["https://x/inner": ScriptResponse(url: "https://x/inner", body: "")],
                                       onFetch: { _ in
            guard let runtime = box.runtime else { return }
            box.record(try runtime.text("'inner:' + result", result: .text("B")))
        })
        let runtime = try ScriptRuntime(jsLib: nil, host: host)
        box.runtime = runtime
        #expect(try runtime.text("java.ajax('https://x/inner'); result", result: .text("A")) == "A")
        #expect(box.recorded == ["inner:B"])
        box.runtime = nil
    }

    @Test("nesting deeper than the limit is a clear error")
    func nestingLimit() throws {
        let box = RuntimeBox()
        let host = RecordingScriptHost(onFetch: { _ in
            guard let runtime = box.runtime else { return }
            box.record(try runtime.text("java.ajax('https://x/again')"))
        })
        let runtime = try ScriptRuntime(jsLib: nil, limits: ScriptLimits(maxNesting: 3), host: host)
        box.runtime = runtime
        // Three levels run; the fourth fails, and ajax at the third turns the failure into text.
        _ = try runtime.text("java.ajax('https://x/again')")
        #expect(box.recorded.first?.contains("test: JavaScript called rules with JavaScript more than 3 levels deep") == true)
        #expect(box.recorded.count == 2)
        box.runtime = nil
    }

    @Test("getString with a JavaScript rule evaluates it nested on the same runtime",
          .enabled(if: (try? RuleParser.parse("@js:1", field: "probe", kind: .string)) != nil,
                   "the rule parser does not split JavaScript steps yet"))
    func getStringWithJavaScript() throws {
        let runtime = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost())
        #expect(try runtime.text("java.getString('@js: result + \"-inner\"') + '|' + result", result: .text("outer"),
                                 context: .text("outer")) == "outer-inner|outer")
    }
}

/// Lets a host closure reach the runtime it belongs to (set after the runtime is made).
final class RuntimeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var stored: ScriptRuntime?
    private var values: [String] = []
    var runtime: ScriptRuntime? {
        get { lock.withLock { stored } }
        set { lock.withLock { stored = newValue } }
    }
    var recorded: [String] { lock.withLock { values } }
    func record(_ value: String) { lock.withLock { values.append(value) } }
}

import BookRuleCheck
import BookRuleEngine
import Testing

@Suite("lint --summary counts login scripts")
struct LoginSummaryTests {
    @Test("sources with a loginUrl script or loginCheckJs are counted, runnable when they parse, warned when they name a browser helper")
    func countsLoginScripts() throws {
        let members = [
            #""loginUrl": "function login() { java.startBrowserDp('https://a.test', 'x') }""#,
            #""loginCheckJs": "Packages.java.lang.Thread.sleep(1); result""#,
            #""loginUrl": "function login() {}", "loginCheckJs": "result""#,
            #""loginUrl": "https://a.test/login.php""#,
        ]
        var summary = CompatibilitySummary()
        for (index, member) in members.enumerated() {
            let json = "{\"bookSourceUrl\": \"https://s\(index).test\", \(member)}"
            summary.add(try #require(try BookSource.load(bytes: Array(json.utf8), path: "s.json").first))
        }
        #expect(summary.withLoginScript == 3)
        #expect(summary.loginScriptRunnable == 2)
        #expect(summary.loginScriptWarned == 1)
        #expect(summary.lines().contains { $0.hasPrefix("login scripts runnable (of the sources with a loginUrl script or loginCheckJs): 2 of 3") })
    }
}

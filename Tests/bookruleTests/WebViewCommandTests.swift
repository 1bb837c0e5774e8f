import BookRule
import Foundation
import Testing
import TestSupport

@Suite("bookrule test on a webView source", .timeLimit(.minutes(2 * TestTime.scale)),
       .enabled(if: ChromiumBrowser.isInstalled, "chromium is not installed (apt install chromium)"))
struct WebViewCommandTests {
    @Test("bookrule test --record renders the pages through the polite fetcher into site.har; bookrule test then passes from it alone")
    func recordThenCheckOffline() async throws {
        let site = try ScriptedSite()
        let scratch = try ScratchDirectory("webview-cli")
        let source = scratch.path + "/webview.json"
        try site.sourceJSON().write(toFile: source, atomically: true, encoding: .utf8)
        // A temporary directory too long for Chromium's singleton socket: the browser's folder goes to /tmp.
        try FileManager.default.createDirectory(atPath: scratch.path + "/a-temporary-directory-with-a-long-name", withIntermediateDirectories: true)
        let environment = ["XDG_STATE_HOME": scratch.path + "/state", "TMPDIR": scratch.path + "/a-temporary-directory-with-a-long-name"]
        let test = "bookrule test \(source) --fixtures \(scratch.path)/fixture --book \(site.base)/book/1/ --min-length 10"
        let recorded = try await runBash(["-c", "\(test) --record --update"], environment: environment)
        #expect(recorded.status == 0, "\(recorded.output)")
        #expect(recorded.output.contains("✓ toc           3 chapter(s)"), "\(recorded.output)")
        let served = site.hits.count
        #expect(served >= 6)
        #expect(site.hits.allSatisfy { !$0.userAgent.contains("Headless") && !$0.userAgent.isEmpty })

        let replayed = try await runBash(["-c", test], environment: environment)
        #expect(replayed.status == 0, "\(replayed.output)")
        #expect(replayed.output.contains("snapshot      matches"), "\(replayed.output)")
        #expect(site.hits.count == served, "the offline check reached the site")
    }

    @Test("a cookie the webView TOC's script sets reaches the plain chapter requests in bookrule test --record, and the offline check reads the same chapters")
    func scriptCookieRecordedThenReplayed() async throws {
        let site = try VerificationSite()
        let scratch = try ScratchDirectory("webview-cookie-cli")
        let source = scratch.path + "/cookie.json"
        try site.cookieSourceJSON().write(toFile: source, atomically: true, encoding: .utf8)
        let environment = ["XDG_STATE_HOME": scratch.path + "/state", "XDG_CONFIG_HOME": scratch.path + "/config"]
        let test = "bookrule test \(source) --fixtures \(scratch.path)/fixture --book \(site.base)/book/1/ --min-length 10"
        let recorded = try await runBash(["-c", "\(test) --record --update"], environment: environment)
        #expect(recorded.status == 0, "\(recorded.output)")
        #expect(recorded.output.contains("✓ toc           3 chapter(s)"), "\(recorded.output)")
        let chapters = site.hits.filter { $0.target.hasPrefix("/chapter/") }
        #expect(!chapters.isEmpty && chapters.allSatisfy { $0.cookie.contains(VerificationSite.gate) }, "\(chapters.map(\.cookie))")
        let snapshot = try String(contentsOfFile: scratch.path + "/fixture/expected.json", encoding: .utf8)
        #expect(snapshot.contains(VerificationSite.text(1)) && snapshot.contains(VerificationSite.text(3)), "\(snapshot)")
        let served = site.hits.count

        let replayed = try await runBash(["-c", test], environment: environment)
        #expect(replayed.status == 0, "\(replayed.output)")
        #expect(replayed.output.contains("snapshot      matches"), "\(replayed.output)")
        #expect(site.hits.count == served, "the offline check reached the site")
    }

    @Test("java.startBrowserAwait in a content rule passes the site's JavaScript challenge in bookrule test --record, and again offline from site.har")
    func verificationRecordedThenReplayed() async throws {
        let site = try VerificationSite()
        let scratch = try ScratchDirectory("verification-cli")
        let source = scratch.path + "/verify.json"
        try site.verificationSourceJSON("java.startBrowserAwait(PAGE, '验证').body()")
            .write(toFile: source, atomically: true, encoding: .utf8)
        let environment = ["XDG_STATE_HOME": scratch.path + "/state", "XDG_CONFIG_HOME": scratch.path + "/config"]
        let test = "bookrule test \(source) --fixtures \(scratch.path)/fixture --book \(site.base)/book/1/ --min-length 5"
        let recorded = try await runBash(["-c", "\(test) --record --update"], environment: environment)
        #expect(recorded.status == 0, "\(recorded.output)")
        let snapshot = try String(contentsOfFile: scratch.path + "/fixture/expected.json", encoding: .utf8)
        #expect(snapshot.contains(VerificationSite.verifiedText), "\(snapshot)\n\(recorded.output)")
        let served = site.hits.count

        let replayed = try await runBash(["-c", test], environment: environment)
        #expect(replayed.status == 0, "\(replayed.output)")
        #expect(replayed.output.contains("snapshot      matches"), "\(replayed.output)")
        #expect(site.hits.count == served, "the offline check reached the site")
    }
}

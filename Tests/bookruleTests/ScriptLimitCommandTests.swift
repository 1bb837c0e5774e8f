import Foundation
import Testing
import TestSupport

/// The limits a source's JavaScript runs under, seen from the command line: a `bookrule` process in a shell.
@Suite("Script limits from the command line")
struct ScriptLimitCommandTests {
    static let source = #"""
        {"bookSourceName": "probe", "bookSourceUrl": "http://probe.test", "bookSourceType": 0,
         "ruleToc": {"chapterList": "//li", "chapterName": "@XPath:./a/text()@js:result + '!'", "chapterUrl": "@XPath:./a/@href"}}
        """#
    static let page = "<html><head><meta charset='utf-8'></head><body><ul><li><a href='/c/1.html'>第1章</a></li></ul></body></html>"

    // JavaScriptCore reserves 4 GiB of address space when it starts, and aborts the process when it cannot.
    @Test("under ulimit -v 4000000 a source's JavaScript fails with an error naming the limit, and bookrule exits with a status, not a signal")
    func addressSpaceLimitIsAnError() async throws {
        let scratch = try ScratchDirectory("ulimit")
        try Self.source.write(toFile: scratch.path + "/source.json", atomically: true, encoding: .utf8)
        try Self.page.write(toFile: scratch.path + "/toc.html", atomically: true, encoding: .utf8)
        let (status, output) = try await runBash(
            ["-c", "ulimit -v 4000000; bookrule toc --source source.json --toc-url http://probe.test/toc --saved toc.html"],
            in: scratch.path)
        #expect(status == 1, "\(output)")
        #expect(output.contains("address-space limit (ulimit -v) of 3906 MiB"), "\(output)")
        #expect(!output.contains("crashed"), "\(output)")
    }

    @Test("with room for JavaScriptCore's reservations under an address-space limit, the script runs")
    func scriptRunsUnderARoomyLimit() async throws {
        let scratch = try ScratchDirectory("ulimit")
        try Self.source.write(toFile: scratch.path + "/source.json", atomically: true, encoding: .utf8)
        try Self.page.write(toFile: scratch.path + "/toc.html", atomically: true, encoding: .utf8)
        let (status, output) = try await runBash(
            ["-c", "ulimit -v 6000000; bookrule toc --source source.json --toc-url http://probe.test/toc --saved toc.html"],
            in: scratch.path)
        #expect(status == 0, "\(output)")
        #expect(output.contains("第1章!"), "\(output)")
    }
}

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

    /// Why the two `ulimit -v` tests are skipped in a sanitizer build (they run in `make test`): the sanitizers
    /// reserve address space of their own at start-up, far beyond these limits (ThreadSanitizer stops with
    /// "Program is run with limited virtual address space", AddressSanitizer cannot map its shadow memory), so
    /// the instrumented `bookrule` never reaches the limit under test.
    static let sanitizerNeedsTheAddressSpace = Comment(
        "a sanitizer reserves address space of its own beyond any `ulimit -v` tested here")

    // JavaScriptCore reserves 4 GiB of address space when it starts, and aborts the process when it cannot.
    @Test("under ulimit -v 4000000 a source's JavaScript fails with an error naming the limit, and bookrule exits with a status, not a signal",
          .disabled(if: TestTime.sanitized, sanitizerNeedsTheAddressSpace))
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

    @Test("with room for JavaScriptCore's reservations under an address-space limit, the script runs",
          .disabled(if: TestTime.sanitized, sanitizerNeedsTheAddressSpace))
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

extension ScriptLimitCommandTests {
    /// Peak RSS in KiB of `bookrule toc` with `chapterName` as given, measured by /usr/bin/time.
    static func peakRSS(chapterName: String) async throws -> (kib: Int, output: String) {
        let scratch = try ScratchDirectory("peak")
        let source = Self.source.replacingOccurrences(of: "@XPath:./a/text()@js:result + '!'", with: chapterName)
        try source.write(toFile: scratch.path + "/source.json", atomically: true, encoding: .utf8)
        try Self.page.write(toFile: scratch.path + "/toc.html", atomically: true, encoding: .utf8)
        let (_, output) = try await runBash(
            ["-c", "/usr/bin/time -f 'peak-rss %M' bookrule toc --source source.json --toc-url http://probe.test/toc --saved toc.html"],
            in: scratch.path)
        let line = output.split(separator: "\n").last { $0.hasPrefix("peak-rss ") }
        return (line.flatMap { Int($0.dropFirst("peak-rss ".count)) } ?? -1, output)
    }

    // Both allocate in one native step, which the watchdog's heap check cannot interrupt (2.5 GB and 1 GB
    // peaks before the guards).
    @Test("a script's one-step allocations (a 1 GiB repeat, a billion-slot fill) stay within the heap limit plus 64 MiB of peak RSS",
          .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/time")))
    func oneStepAllocationsStayWithinTheHeapLimit() async throws {
        let baseline = try await Self.peakRSS(chapterName: "@XPath:./a/text()@js:result + '!'")
        #expect(baseline.kib > 0, "\(baseline.output)")
        let bound = baseline.kib + (256 << 10) + (64 << 10)
        for probe in [#"@js:\"x\".repeat(2**30).length"#, "@js:new Array(1e9).fill(0).length"] {
            let (kib, output) = try await Self.peakRSS(chapterName: probe)
            #expect(kib > 0 && kib <= bound, "\(probe): peak \(kib) KiB, bound \(bound) KiB (baseline \(baseline.kib) KiB)\n\(output)")
            #expect(output.contains("256 MiB heap limit"), "\(output)")
        }
    }
}

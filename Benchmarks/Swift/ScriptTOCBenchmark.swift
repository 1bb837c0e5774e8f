import BookRule
import Foundation

/// The cost of JavaScript on a hot field: the same 5,000-chapter TOC read with `chapterName` as plain XPath
/// and as XPath followed by `@js:` (a clean-up every chapter title goes through), interleaved round by round.
/// Prints the medians and their ratio (target: within 3×).
enum ScriptTOCBenchmark {
    static func source(chapterName: String) -> String {
        """
        {
          "bookSourceUrl": "https://www.example-novel.test",
          "bookSourceName": "benchmark",
          "ruleToc": {
            "chapterList": "//div[@class='listmain']/dl/dt[2]/following-sibling::dd/a",
            "chapterName": "\(chapterName)",
            "chapterUrl": "//a/@href"
          }
        }
        """
    }

    static func run(tocPage path: String, iterations: Int) async throws {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        let pageURL = "https://www.example-novel.test/book/1234/"
        let transport = MemoryPage(url: pageURL, body: [UInt8](data))
        func engine(_ chapterName: String) throws -> SourceEngine {
            let sources = try BookSource.load(bytes: Array(source(chapterName: chapterName).utf8), path: "benchmark.json")
            guard let source = sources.first, source.problems.isEmpty else { fail("benchmark source has problems") }
            return SourceEngine(source: source, transport: transport)
        }
        let plain = try engine("//a/text()")
        let scripted = try engine("//a/text()@js:result.replace(/\\\\s+/g, ' ').trim()")
        let clock = ContinuousClock()
        var plainTimes: [Double] = []
        var scriptTimes: [Double] = []
        var titlesMatch = true
        for iteration in 0...iterations {
            var start = clock.now
            let a = try await plain.toc(url: pageURL)
            let plainElapsed = clock.now - start
            start = clock.now
            let b = try await scripted.toc(url: pageURL)
            let scriptElapsed = clock.now - start
            if iteration == 0 {
                titlesMatch = a.chapters.map(\.title) == b.chapters.map(\.title) && a.chapters.count == 5000
                continue
            }
            plainTimes.append(milliseconds(plainElapsed))
            scriptTimes.append(milliseconds(scriptElapsed))
        }
        guard titlesMatch else { fail("the @js: TOC gave other titles than the plain one") }
        let plainMedian = median(plainTimes)
        let scriptMedian = median(scriptTimes)
        print("script-toc plain median_ms=\(String(format: "%.3f", plainMedian)) js median_ms=\(String(format: "%.3f", scriptMedian)) ratio_median=\(String(format: "%.2f", scriptMedian / plainMedian))x chapters=5000 (target <= 3x)")
    }

    static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1e3 + Double(duration.components.attoseconds) / 1e15
    }

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 0 ? (sorted[middle - 1] + sorted[middle]) / 2 : sorted[middle]
    }
}

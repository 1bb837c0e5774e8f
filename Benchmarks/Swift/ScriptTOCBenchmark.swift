import BookRule
import Foundation

/// The cost of JavaScript on a hot field: the same 5,000-chapter TOC read with `chapterName` as plain XPath
/// and as XPath followed by `@js:` (a clean-up every chapter title goes through), interleaved round by round.
/// Prints the medians and their ratio (target: within 1.5×, issue #22), in wall time and in the process's CPU
/// time (all threads: the engine's, the collector's), which a machine shared with other work disturbs less.
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
        var plainCPU: [Double] = []
        var scriptCPU: [Double] = []
        var titlesMatch = true
        for iteration in 0...iterations {
            var start = clock.now
            var cpuStart = processCPUMilliseconds()
            let a = try await plain.toc(url: pageURL)
            let plainElapsed = clock.now - start
            let plainCPUElapsed = processCPUMilliseconds() - cpuStart
            start = clock.now
            cpuStart = processCPUMilliseconds()
            let b = try await scripted.toc(url: pageURL)
            let scriptElapsed = clock.now - start
            let scriptCPUElapsed = processCPUMilliseconds() - cpuStart
            if iteration == 0 {
                titlesMatch = a.chapters.map(\.title) == b.chapters.map(\.title) && a.chapters.count == 5000
                continue
            }
            plainTimes.append(milliseconds(plainElapsed))
            scriptTimes.append(milliseconds(scriptElapsed))
            plainCPU.append(plainCPUElapsed)
            scriptCPU.append(scriptCPUElapsed)
        }
        guard titlesMatch else { fail("the @js: TOC gave other titles than the plain one") }
        let plainMedian = median(plainTimes)
        let scriptMedian = median(scriptTimes)
        print("script-toc plain median_ms=\(String(format: "%.3f", plainMedian)) js median_ms=\(String(format: "%.3f", scriptMedian)) ratio_median=\(String(format: "%.2f", scriptMedian / plainMedian))x chapters=5000 (target <= 1.5x)")
        let plainCPUMedian = median(plainCPU)
        let scriptCPUMedian = median(scriptCPU)
        print("script-toc plain cpu_median_ms=\(String(format: "%.3f", plainCPUMedian)) js cpu_median_ms=\(String(format: "%.3f", scriptCPUMedian)) cpu_ratio_median=\(String(format: "%.2f", scriptCPUMedian / plainCPUMedian))x")
    }

    /// CPU time of the whole process so far, every thread included.
    static func processCPUMilliseconds() -> Double {
        var time = timespec()
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &time)
        return Double(time.tv_sec) * 1e3 + Double(time.tv_nsec) / 1e6
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

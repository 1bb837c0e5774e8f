import BookRule
import BookRuleStudio
import Foundation

/// The studio's edit-to-highlight path on a 5,000-chapter TOC: what one `/api/evaluate` does on the server
/// (compile the edited source, run every ruleToc field on the step's page with the list rule once, map the
/// focused field's nodes to frame numbers, encode the answer), for an edit of chapterList and of chapterName.
/// The reference, measured in the same run, is `SourceEngine.toc` on the same page (fetch from memory, parse,
/// every field). Also prints the one-time cost of opening the page (parse and re-write for the frame).
enum StudioBenchmark {
    static func source(chapterList: String) -> String {
        """
        {
          "bookSourceUrl": "https://www.example-novel.test",
          "bookSourceName": "benchmark",
          "ruleToc": {
            "chapterList": "\(chapterList)",
            "chapterName": "//a/text()",
            "chapterUrl": "//a/@href"
          }
        }
        """
    }

    static func run(tocPage path: String, iterations: Int) async throws {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        let pageURL = "https://www.example-novel.test/book/1234/"
        let clock = ContinuousClock()
        var start = clock.now
        let page = try StudioPage(url: pageURL, status: 200, origin: "benchmark", bytes: [UInt8](data), contentType: "text/html")
        let openMilliseconds = ScriptTOCBenchmark.milliseconds(clock.now - start)
        // Two spellings of the list rule, alternated, so every round is an edit that changes the source text.
        let edits = [source(chapterList: "//div[@class='listmain']/dl/dt[2]/following-sibling::dd/a"),
                     source(chapterList: "//div[@class='listmain']/dl/dt[2]/following-sibling::dd[a]/a")]
        guard let engineSource = try BookSource.load(bytes: Array(edits[0].utf8), path: "benchmark.json").first else {
            fail("benchmark source does not load")
        }
        let engine = SourceEngine(source: engineSource, transport: MemoryPage(url: pageURL, body: [UInt8](data)))
        var listTimes: [Double] = []
        var nameTimes: [Double] = []
        var engineTimes: [Double] = []
        var marked = (list: 0, name: 0)
        for iteration in 0...iterations {
            let text = edits[iteration % 2]
            start = clock.now
            let list = try StudioEvaluation.evaluate(sourceText: text, step: .toc, page: page, focus: "chapterList")
            _ = try JSONWriter.bytes(list)
            let listElapsed = clock.now - start
            start = clock.now
            let name = try StudioEvaluation.evaluate(sourceText: text, step: .toc, page: page, focus: "chapterName")
            _ = try JSONWriter.bytes(name)
            let nameElapsed = clock.now - start
            start = clock.now
            let toc = try await engine.toc(url: pageURL)
            let engineElapsed = clock.now - start
            if iteration == 0 {
                marked = (list.focus?.nodes.count ?? 0, name.focus?.nodes.count ?? 0)
                guard toc.chapters.count == 5000, marked.list == 5000, marked.name == 5000 else {
                    fail("expected 5000 chapters marked; got \(marked) and a TOC of \(toc.chapters.count)")
                }
                continue
            }
            listTimes.append(ScriptTOCBenchmark.milliseconds(listElapsed))
            nameTimes.append(ScriptTOCBenchmark.milliseconds(nameElapsed))
            engineTimes.append(ScriptTOCBenchmark.milliseconds(engineElapsed))
        }
        let list = ScriptTOCBenchmark.median(listTimes)
        let name = ScriptTOCBenchmark.median(nameTimes)
        let reference = ScriptTOCBenchmark.median(engineTimes)
        print("studio open_ms=\(String(format: "%.1f", openMilliseconds)) (parse and re-write for the frame, once per page)")
        print("studio edit chapterList median_ms=\(String(format: "%.1f", list)) marked=\(marked.list)")
        print("studio edit chapterName median_ms=\(String(format: "%.1f", name)) marked=\(marked.name)")
        print("engine toc (reference) median_ms=\(String(format: "%.1f", reference))")
        print("ratio edit/toc: chapterList \(String(format: "%.2f", list / reference))x, chapterName \(String(format: "%.2f", name / reference))x (target: edit under 100 ms)")
    }
}

// bookrule-bench: the BookRule side of Benchmarks/run.sh.
//
//   bookrule-bench toc FILE ENCODING ITERATIONS
//   bookrule-bench regex UTF8-TOC-FILE ITERATIONS     (PCRE2 through RegexPattern vs NSRegularExpression)
//   bookrule-bench politeness REQUESTS                 (elapsed ÷ time the server asked for, virtual clock)
//   bookrule-bench script-toc UTF8-TOC-FILE ITERATIONS (chapterName with @js: vs without)
//   bookrule-bench studio UTF8-TOC-FILE ITERATIONS     (the studio's edit-to-highlight path vs SourceEngine.toc)
//   bookrule-bench websocket-search SOURCES ITERATIONS (serve's searchBook over SOURCES replayed sources)
//   bookrule-bench webview CHAPTERS ITERATIONS          (Chromium's start, a webView TOC vs the plain one)
//   bookrule-bench serve-content CLIENTS REQUESTS       (serve's getBookContent of saved chapters, keep-alive clients)
//   bookrule-bench font FONT MAP.json …                 (web fonts decoded cold: accuracy and time per font)
//
// Runs a whole `SourceEngine.toc` (fetch from memory, charset detection, parse, XPath, field rules, URL
// resolution, de-duplication) on a saved TOC page and prints one line in the format run.sh reads:
//   bookrule <label> median_ms=<x> min_ms=<y> chapters=<n> checksum=<sum of UTF-8 lengths of titles and URLs>
// ENCODING is what the C and Python references are told; BookRule detects it from the page and the run fails
// when its decision disagrees.
import BookRule
import Foundation
import Synchronization

struct MemoryPage: HTTPTransport {
    let url: String
    let body: [UInt8]

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        HTTPResponse(url: url, status: 200, headers: [HTTPHeader("Content-Type", "text/html")], body: body)
    }
}

let sourceJSON = """
{
  "bookSourceUrl": "https://www.example-novel.test",
  "bookSourceName": "benchmark",
  "ruleToc": {
    "chapterList": "//div[@class='listmain']/dl/dt[2]/following-sibling::dd/a",
    "chapterName": "//a/text()",
    "chapterUrl": "//a/@href"
  }
}
"""

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data((message + "\n").utf8))
    exit(2)
}

/// Runs `body` on the concurrency pool and blocks the main thread until it ends. The benchmark's main code
/// never awaits: an `async` main parks the main thread in `dispatch_main`, which valgrind cannot run (its
/// `sigsuspend` crashes valgrind 3.19), and `callgrind` instruction counts are the measure a shared machine
/// cannot disturb.
func waiting<T: Sendable>(_ body: @escaping @Sendable () async throws -> T) throws -> T {
    let outcome = Mutex<Result<T, any Error>?>(nil)
    let done = DispatchSemaphore(value: 0)
    Task.detached {
        let result: Result<T, any Error>
        do { result = .success(try await body()) } catch { result = .failure(error) }
        outcome.withLock { $0 = result }
        done.signal()
    }
    done.wait()
    guard let result = outcome.withLock({ $0 }) else { fail("a benchmark ended without a result") }
    return try result.get()
}

let arguments = CommandLine.arguments
if arguments.count == 3, arguments[1] == "politeness", let requests = Int(arguments[2]), requests > 1 {
    try waiting { try await PolitenessBenchmark.run(requests: requests) }
    exit(0)
}
if arguments.count >= 4, arguments.count % 2 == 0, arguments[1] == "font" {
    let rest = Array(arguments[2...])
    try FontBenchmark.run(pairs: stride(from: 0, to: rest.count, by: 2).map { (rest[$0], rest[$0 + 1]) })
    exit(0)
}
if arguments.count == 3, arguments[1] == "lock", let iterations = Int(arguments[2]), iterations > 0 {
    LockBenchmark.run(iterations: iterations)
    exit(0)
}
if arguments.count == 4, arguments[1] == "script-toc", let iterations = Int(arguments[3]), iterations > 0 {
    try waiting { try await ScriptTOCBenchmark.run(tocPage: arguments[2], iterations: iterations) }
    exit(0)
}
if arguments.count == 4, arguments[1] == "studio", let iterations = Int(arguments[3]), iterations > 0 {
    try waiting { try await StudioBenchmark.run(tocPage: arguments[2], iterations: iterations) }
    exit(0)
}
if arguments.count == 4, arguments[1] == "websocket-search", let count = Int(arguments[2]), count > 0,
   let iterations = Int(arguments[3]), iterations > 0 {
    try waiting { try await WebSocketSearchBenchmark.run(sources: count, iterations: iterations) }
    exit(0)
}
if arguments.count == 4, arguments[1] == "serve-content", let clients = Int(arguments[2]), clients > 0,
   let requests = Int(arguments[3]), requests >= clients {
    try waiting { try await ServeContentBenchmark.run(clients: clients, requests: requests) }
    exit(0)
}
if arguments.count == 4, arguments[1] == "webview", let chapters = Int(arguments[2]), chapters > 0,
   let iterations = Int(arguments[3]), iterations > 0 {
    try waiting { try await WebViewBenchmark.run(chapters: chapters, iterations: iterations) }
    exit(0)
}
if arguments.count == 4, arguments[1] == "regex", let iterations = Int(arguments[3]), iterations > 0 {
    try RegexBenchmark.run(tocPage: arguments[2], iterations: iterations)
    exit(0)
}
guard arguments.count == 5, arguments[1] == "toc", let iterations = Int(arguments[4]), iterations > 0 else {
    fail("usage: bookrule-bench toc FILE ENCODING ITERATIONS | bookrule-bench regex UTF8-TOC-FILE ITERATIONS | bookrule-bench politeness REQUESTS | bookrule-bench lock ITERATIONS | bookrule-bench script-toc UTF8-TOC-FILE ITERATIONS | bookrule-bench studio UTF8-TOC-FILE ITERATIONS | bookrule-bench websocket-search SOURCES ITERATIONS | bookrule-bench webview CHAPTERS ITERATIONS | bookrule-bench serve-content CLIENTS REQUESTS")
}
let path = arguments[2]
guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
let pageURL = "https://www.example-novel.test/book/1234/"
let label = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent

let sources: [BookSource]
do {
    sources = try BookSource.load(bytes: Array(sourceJSON.utf8), path: "benchmark.json")
} catch {
    fail("\(error)")
}
guard let source = sources.first, source.problems.isEmpty else { fail("benchmark source has problems") }
let engine = SourceEngine(source: source, transport: MemoryPage(url: pageURL, body: [UInt8](data)))

let expected = arguments[3].uppercased()
let decision = try HTMLDocument(bytes: [UInt8](data), url: pageURL).charset
if decision.charset != expected && !(expected == "UTF8" && decision.charset == "UTF-8") {
    fail("BookRule decoded \(path) as \(decision) but the references use \(expected)")
}

/// The timed TOC loop, run on the pool as a whole: awaiting the engine from main-actor code would hop to the
/// main thread and back on every iteration, a cost of the benchmark's caller, not of the TOC read.
enum TOCRuns {
    static func timed(_ engine: SourceEngine, url: String, iterations: Int) async throws
        -> (chapters: Int, checksum: Int, timings: [Double]) {
        var checksum = 0
        var chapters = 0
        var timings: [Double] = []
        let clock = ContinuousClock()
        for iteration in 0...iterations {
            let start = clock.now
            let toc = try await engine.toc(url: url)
            let elapsed = clock.now - start
            if iteration == 0 {
                // Warm-up run; also the one whose result is checked.
                chapters = toc.chapters.count
                checksum = toc.chapters.reduce(0) { $0 + $1.title.utf8.count + $1.url.utf8.count }
                continue
            }
            timings.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1e3)
        }
        return (chapters, checksum, timings)
    }
}

let (chapters, checksum, runTimes) = try waiting { try await TOCRuns.timed(engine, url: pageURL, iterations: iterations) }
let clock = ContinuousClock()
let timings = runTimes.sorted()
let middle = timings.count / 2
let median = timings.count % 2 == 0 ? (timings[middle - 1] + timings[middle]) / 2 : timings[middle]
print("bookrule \(label) median_ms=\(String(format: "%.3f", median)) min_ms=\(String(format: "%.3f", timings[0])) chapters=\(chapters) checksum=\(checksum)")

// Where the time goes, printed on stderr so run.sh's parsing is unaffected: parsing alone and the list rule
// alone on the same page; the rest of a TOC run (field rules, clean-up, URL resolution, models,
// de-duplication, freeing) is the whole run's minimum minus these.
if ProcessInfo.processInfo.environment["BOOKRULE_BENCH_PHASES"] != nil {
    let bytes = [UInt8](data)
    let list = try RuleParser.parse("//div[@class='listmain']/dl/dt[2]/following-sibling::dd/a", field: "chapterList", kind: .list)
    var parseTimes: [Double] = []
    var listTimes: [Double] = []
    func milliseconds(_ duration: Duration) -> Double { Double(duration.components.attoseconds) / 1e15 }
    for _ in 0..<iterations {
        var start = clock.now
        let document = try HTMLDocument(bytes: bytes, url: pageURL)
        parseTimes.append(milliseconds(clock.now - start))
        start = clock.now
        let items = try list.elements(in: .node(document.root), environment: RuleEnvironment(baseURL: pageURL))
        listTimes.append(milliseconds(clock.now - start))
        precondition(items.count == 5000)
    }
    let parse = parseTimes.min() ?? 0
    let listRule = listTimes.min() ?? 0
    let rest = timings[0] - parse - listRule
    FileHandle.standardError.write(Data("phases \(label): parse min_ms=\(String(format: "%.3f", parse)) list rule min_ms=\(String(format: "%.3f", listRule)) rest of the run min_ms=\(String(format: "%.3f", rest))\n".utf8))
}

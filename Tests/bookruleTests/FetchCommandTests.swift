import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleHTTP
@testable import BookRuleLibrary
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A generated book served on loopback: a book page that is also its TOC, and one page per chapter.
final class BookSite: Sendable {
    let server: FaultServer
    private let chapterCount: ChapterCount

    /// How many chapters the site lists now (tests add chapters between runs).
    final class ChapterCount: Sendable {
        let value: Locked<Int>
        init(_ value: Int) { self.value = Locked(value) }
    }
    /// Chapters that always answer 500; chapters whose first `n` requests answer 503.
    let dead: Set<Int>
    let bursts: [Int: Int]
    /// While set, chapters after this number are held (answered after 120 s), so a run is caught mid-book
    /// however late a loaded machine lets the test look; `release()` lets them through.
    private let holdAfter: Locked<Int?>

    init(chapters: Int, dead: Set<Int> = [], bursts: [Int: Int] = [:], delay: Double = 0, holdAfter: Int? = nil) throws {
        let count = ChapterCount(chapters)
        chapterCount = count
        self.dead = dead
        self.bursts = bursts
        let hold = Locked(holdAfter)
        self.holdAfter = hold
        server = try FaultServer(lifetime: 120, maxRequests: 5000) { request, index in
            let total = count.value.withLock { $0 }
            let reply: FaultServer.Behaviour
            if request.path == "/book/1/" {
                let items = (1...total).map { "<dd><a href=\"/book/1/\($0).html\">\(BookSite.title($0))</a></dd>" }.joined()
                reply = .ok("<html><head><title>测试之书</title></head><body><h1>测试之书</h1><p id='author'>佚名</p>"
                            + "<dl id='list'>\(items)</dl></body></html>", headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")])
            } else if request.path.hasPrefix("/book/1/"), let number = Int(request.path.dropFirst(8).dropLast(5)), (1...total).contains(number) {
                if dead.contains(number) {
                    reply = .status(500, retryAfter: "0")
                } else if let failures = bursts[number], index < failures {
                    reply = .status(503, retryAfter: "0")
                } else if let limit = hold.withLock({ $0 }), number > limit {
                    reply = .slow(delay: 120, then: .status(503, retryAfter: "0"))
                } else {
                    let body = BookSite.paragraphs(number).map { "　　\($0)" }.joined(separator: "<br><br>")
                    reply = .ok("<html><body><h1>\(BookSite.title(number))</h1><div id='content'>\(body)</div></body></html>",
                                headers: [HTTPHeader("Content-Type", "text/html; charset=utf-8")])
                }
            } else {
                reply = .status(404)
            }
            return delay > 0 ? .slow(delay: delay, then: reply) : reply
        }
    }

    var bookURL: String { server.baseURL + "/book/1/" }

    func setChapters(_ value: Int) { chapterCount.value.withLock { $0 = value } }

    /// Stops holding chapters (`holdAfter`).
    func release() { holdAfter.withLock { $0 = nil } }

    static func title(_ number: Int) -> String { "第\(number)章 测试" }

    static func paragraphs(_ number: Int) -> [String] {
        (1...3).map { "第\(number)章第\($0)段：这是生成的正文 \(number * 31 + $0)。" }
    }

    static func text(_ number: Int) -> String { paragraphs(number).joined(separator: "\n") }

    /// A source for this site, written to `directory`.
    func sourceFile(in directory: String) throws -> String {
        let json = """
        {"bookSourceUrl": "\(server.baseURL)", "bookSourceName": "loopback book",
         "ruleBookInfo": {"name": "//h1/text()", "author": "//p[@id='author']/text()"},
         "ruleToc": {"chapterList": "//dl[@id='list']/dd/a", "chapterName": "/text()", "chapterUrl": "/@href"},
         "ruleContent": {"content": "//div[@id='content']"}}
        """
        let path = directory + "/loopback.json"
        try json.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    /// Chapter numbers requested at or after `since` (seconds from server start).
    func chapterRequests(since: Double = 0) -> [Int] {
        server.records.filter { $0.arrivedAt >= since && $0.path.hasPrefix("/book/1/") && $0.path.hasSuffix(".html") }
            .compactMap { Int($0.path.dropFirst(8).dropLast(5)) }
    }
}

@Suite("bookrule fetch: resumable downloads into the library", .serialized, .timeLimit(.minutes(3 * TestTime.scale)),
       .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first (swift build)"))
struct FetchCommandTests {
    static let fast = ["--delay", "0", "--failure-delay", "0"]

    @Test("kill -9 mid-run, rerun: the book completes, texts are exact, saved chapters are not fetched again")
    func killAndResume() async throws {
        let site = try BookSite(chapters: 300, delay: 0.01, holdAfter: 150)
        let directory = try temporaryDirectory()
        let source = try site.sourceFile(in: directory)
        let library = directory + "/library.sqlite"
        let first = try BookruleProcess(["fetch", "--source", source, site.bookURL, "--library", library] + Self.fast)
        // Let it save a good part of the book, then kill it without warning.
        let deadline = ContinuousClock.now + .seconds(30)
        while site.chapterRequests().count < 120 && ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        kill(first.process.processIdentifier, SIGKILL)
        site.release()
        let killed = try await first.wait()
        #expect(killed.status != 0)
        let killedAt = (site.server.records.last?.arrivedAt ?? 0) + 0.000_001

        let savedBefore = try LibraryStore(path: library).chapters(bookID: 1, states: [.done]).map(\.position)
        #expect(savedBefore.count >= 100 && savedBefore.count < 300, "saved \(savedBefore.count) before the kill")

        let second = try BookruleProcess(["fetch", "--source", source, site.bookURL, "--library", library] + Self.fast)
        let result = try await second.wait()
        #expect(result.status == 0, "\(result.output)")

        let store = try LibraryStore(path: library)
        let chapters = try store.chapters(bookID: 1)
        #expect(chapters.count == 300)
        #expect(chapters.allSatisfy { $0.state == .done })
        for chapter in chapters {
            #expect(try store.text(bookID: 1, url: chapter.url) == BookSite.text(chapter.position + 1))
        }
        let refetched = Set(site.chapterRequests(since: killedAt)).intersection(savedBefore.map { $0 + 1 })
        #expect(refetched.isEmpty, "chapters saved before the kill were fetched again: \(refetched.sorted())")
    }

    @Test("new chapters on the site: a rerun fetches only those, and the TOC grows in order")
    func newChapters() async throws {
        let site = try BookSite(chapters: 20)
        let directory = try temporaryDirectory()
        let source = try site.sourceFile(in: directory)
        let library = directory + "/library.sqlite"
        let first = try await BookruleProcess(["fetch", "--source", source, site.bookURL, "--library", library] + Self.fast).wait()
        #expect(first.status == 0, "\(first.output)")
        let before = site.server.records.count
        site.setChapters(25)
        let second = try await BookruleProcess(["fetch", "--source", source, site.bookURL, "--library", library] + Self.fast).wait()
        #expect(second.status == 0, "\(second.output)")
        let later = site.server.records.dropFirst(before).filter { $0.path.hasSuffix(".html") }
            .compactMap { Int($0.path.dropFirst(8).dropLast(5)) }
        #expect(later == [21, 22, 23, 24, 25])
        let titles = try LibraryStore(path: library).chapters(bookID: 1).map(\.title)
        #expect(titles == (1...25).map(BookSite.title))
    }

    @Test("503 bursts are ridden out; a dead chapter is listed as failed (exit 1) and the next run retries only it")
    func burstsAndDeadChapter() async throws {
        let site = try BookSite(chapters: 30, dead: [7], bursts: [3: 2, 12: 1, 20: 3])
        let directory = try temporaryDirectory()
        let source = try site.sourceFile(in: directory)
        let library = directory + "/library.sqlite"
        let first = try await BookruleProcess(["fetch", "--source", source, site.bookURL, "--library", library] + Self.fast).wait()
        #expect(first.status == 1)
        #expect(first.output.contains("failed chapters"))
        #expect(first.output.contains("7. 第7章 测试"))
        let store = try LibraryStore(path: library)
        let states = try store.chapters(bookID: 1)
        #expect(states.filter { $0.state == .done }.count == 29)
        #expect(states.filter { $0.state == .failed }.map(\.position) == [6])

        let before = site.server.records.count
        let second = try await BookruleProcess(["fetch", "--source", source, site.bookURL, "--library", library] + Self.fast).wait()
        #expect(second.status == 1)
        let retried = site.server.records.dropFirst(before).filter { $0.path.hasSuffix(".html") }.map(\.path)
        #expect(Set(retried) == ["/book/1/7.html"])
    }

    @Test("the example book is fetched offline from its recording and exported as EPUB and TXT")
    func offlineExample() async throws {
        let root = repositoryRoot
        let directory = try temporaryDirectory()
        let library = directory + "/library.sqlite"
        let fetch = try await BookruleProcess([
            "fetch", "--source", "\(root)/Sources-json/example-gbk.json", "--replay", "\(root)/Fixtures/example-gbk/book.har",
            "http://127.0.0.1:8791/book/102/", "--library", library, "--epub", "-o", directory + "/out/",
        ]).wait()
        #expect(fetch.status == 0, "\(fetch.output)")
        let files = try FileManager.default.contentsOfDirectory(atPath: directory + "/out")
        #expect(files == ["长夜灯火.epub"])
        if let tool = EPUBCheck.tool {
            let (status, report) = try await EPUBCheck.run(directory + "/out/长夜灯火.epub", tool: tool)
            #expect(status == 0 && report.contains("No errors or warnings detected"), "epubcheck:\n\(report)")
        } else {
            print("epubcheck skipped: Java or epubcheck is absent (apt-get install epubcheck)")
        }
        let export = try await BookruleProcess(["export", "长夜", "--txt", "-o", directory + "/book.txt", "--library", library]).wait()
        #expect(export.status == 0, "\(export.output)")
        let text = try String(contentsOfFile: directory + "/book.txt", encoding: .utf8)
        #expect(text.hasPrefix("长夜灯火"))
        #expect(text.contains("第12章"))
    }
}

import BookRuleLocking
import BookRuleJSON
import BookRuleLibrary
import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("bookrule serve: chapter text, single-flight fetches, progress and replace rules",
       .timeLimit(.minutes(2 * TestTime.scale)))
struct ReadingTests {
    @Test("getBookContent answers saved text as saved, and fetches an unsaved chapter once and saves it")
    func savedAndFetched() async throws {
        let workspace = try await ServeWorkspace()
        let url = ServeWorkspace.encoded(workspace.site.bookURL)
        let saved = try ServeWorkspace.data(try await workspace.get("/getBookContent?url=\(url)&index=0"))
        let chapters = try workspace.store.chapters(bookID: workspace.book.id)
        #expect(saved == .string(try #require(try workspace.store.text(bookID: workspace.book.id, url: chapters[0].url))))
        #expect(!workspace.site.chapterRequests.contains(1) || workspace.site.chapterRequests.filter { $0 == 1 }.count == 1)
        let requestsBefore = workspace.site.chapterRequests.count

        let fetched = try ServeWorkspace.data(try await workspace.get("/getBookContent?url=\(url)&index=5"))
        #expect(fetched.stringValue?.contains(MirrorSite.paragraphs(6)[0]) == true)
        #expect(try workspace.store.text(bookID: workspace.book.id, url: chapters[5].url) == fetched.stringValue)
        _ = try await workspace.get("/getBookContent?url=\(url)&index=5")
        #expect(workspace.site.chapterRequests.count == requestsBefore + 1)
    }

    @Test("Ten clients asking at once for one unsaved chapter cause one site request, and all get its text")
    func tenClientsOneRequest() async throws {
        let workspace = try await ServeWorkspace(siteDelay: 0.5)
        let target = "/getBookContent?url=\(ServeWorkspace.encoded(workspace.site.bookURL))&index=4"
        let client = workspace.client
        let responses = try await withThrowingTaskGroup(of: RawHTTP.Response.self) { group in
            for _ in 0..<10 {
                group.addTask { try await client.send("GET", target) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let answers = try responses.map { try ServeWorkspace.data(try ServeWorkspace.object($0)) }
        #expect(answers.count == 10)
        #expect(Set(answers.compactMap(\.stringValue)).count == 1)
        #expect(workspace.site.chapterRequests.filter { $0 == 5 }.count == 1, "\(workspace.site.chapterRequests)")
    }

    @Test("Readers waiting on a slow site stall no polling thread: a saved chapter is answered at once beside six of them (more than the polling threads)", .tags(.realTime))
    func savedChapterNotStalledBySiteWaits() async throws {
        let workspace = try await ServeWorkspace(siteDelay: 3)
        let url = ServeWorkspace.encoded(workspace.site.bookURL)
        let client = workspace.client
        // Six readers of unsaved chapters (more than the polling threads of two cores), each waiting on the 3 s site.
        let waiting = Task {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 2..<5 {
                    for _ in 0..<2 { group.addTask { _ = try await client.send("GET", "/getBookContent?url=\(url)&index=\(index)") } }
                }
                try await group.waitForAll()
            }
        }
        try await eventually("a reader's request reaching the site") { !workspace.site.chapterRequests.isEmpty }
        let start = ContinuousClock.now
        let saved = try ServeWorkspace.data(try await workspace.get("/getBookContent?url=\(url)&index=0"))
        let took = ContinuousClock.now - start
        #expect(saved.stringValue?.isEmpty == false)
        #expect(took < .seconds(2), "the saved chapter took \(took) beside readers waiting on the site")
        try await waiting.value
    }

    @Test("saveBookProgress (a text/plain beacon) is kept per book: getBookshelf and the library show it")
    func progressRoundTrip() async throws {
        let workspace = try await ServeWorkspace()
        let title = MirrorSite.title(4, style: .arabic)
        let progress = #"{"name":"\#(MirrorSite.bookName)","author":"\#(MirrorSite.author)","durChapterIndex":3,"durChapterPos":120,"durChapterTime":1767225600000,"durChapterTitle":"\#(title)"}"#
        #expect(try ServeWorkspace.data(try await workspace.post("/saveBookProgress", progress,
                                                                  headers: [("Content-Type", "text/plain;charset=UTF-8")])) == .string(""))
        let shelf = try #require(try ServeWorkspace.data(try await workspace.get("/getBookshelf")).arrayValue?.first?.value.objectValue)
        #expect(shelf["durChapterIndex"]?.value == .number("3"))
        #expect(shelf["durChapterPos"]?.value == .number("120"))
        #expect(shelf["durChapterTitle"]?.value == .string(title))
        #expect(shelf["durChapterTime"]?.value == .number("1767225600000"))
        let kept = try #require(try workspace.store.readingProgress()[workspace.book.id])
        #expect(kept == ReadingProgress(chapterIndex: 3, chapterPosition: 120, chapterTitle: title,
                                        readAt: Date(timeIntervalSince1970: 1_767_225_600)))
        let unknown = try await workspace.post("/saveBookProgress", #"{"name":"nobody","author":"","durChapterIndex":1}"#)
        #expect(unknown["isSuccess"]?.value == .bool(false))
    }

    @Test("Reading a chapter fetches the next N unsaved ones in the background, each once, volume headings skipped")
    func prefetchesNextChapters() async throws {
        let workspace = try await ServeWorkspace(prefetch: 2)
        let url = ServeWorkspace.encoded(workspace.site.bookURL)
        _ = try ServeWorkspace.data(try await workspace.get("/getBookContent?url=\(url)&index=1"))
        let chapters = try workspace.store.chapters(bookID: workspace.book.id)
        try await eventually("chapters 3 and 4 are saved") {
            try workspace.store.text(bookID: workspace.book.id, url: chapters[2].url) != nil
                && workspace.store.text(bookID: workspace.book.id, url: chapters[3].url) != nil
        }
        #expect(try workspace.store.text(bookID: workspace.book.id, url: chapters[4].url) == nil)
        // A reader who comes to a chapter fetched ahead gets it without another site request.
        let before = workspace.site.chapterRequests
        #expect(before.filter { $0 == 3 }.count == 1 && before.filter { $0 == 4 }.count == 1, "\(before)")
        let third = try ServeWorkspace.data(try await workspace.get("/getBookContent?url=\(url)&index=2"))
        #expect(third.stringValue?.contains(MirrorSite.paragraphs(3)[0]) == true)
        try await eventually("chapter 5 is fetched ahead too") {
            try workspace.store.text(bookID: workspace.book.id, url: chapters[4].url) != nil
        }
        #expect(workspace.site.chapterRequests.filter { $0 == 3 }.count == 1)
    }

    @Test("--update-every brings every book up to date on schedule: new chapters in the TOC are fetched and saved")
    func scheduledUpdate() async throws {
        let reports = Locked<[String]>([])
        let workspace = try await ServeWorkspace(updateInterval: .milliseconds(200), updateReport: { line in
            reports.withLock { $0.append(line) }
        })
        workspace.site.setChapters(10)
        try await eventually("the two new chapters and the six unsaved ones are saved") {
            let chapters = try workspace.store.chapters(bookID: workspace.book.id)
            return chapters.count == 10 && chapters.allSatisfy { $0.state == .done }
        }
        try await eventually("a run is reported") { !reports.withLock { $0 }.isEmpty }
        #expect(reports.withLock { $0 }.first?.hasPrefix("updated 1 book(s): ") == true)
    }

    @Test("Stopping while a reader waits for a slow site ends at once: the site wait is cancelled, the reader answered", .tags(.realTime))
    func stopCancelsSiteWaits() async throws {
        // The site takes 6 s: the stop must come while the reader waits, however late a busy machine lets this
        // test see the request arrive (2 s was once too short in a full run).
        let workspace = try await ServeWorkspace(siteDelay: 6)
        let client = workspace.client
        let target = "/getBookContent?url=\(ServeWorkspace.encoded(workspace.site.bookURL))&index=6"
        let waiting = Task { try? await client.send("GET", target) }
        try await eventually("the site is asked for chapter 7") { workspace.site.server.records.contains { $0.path == "/book/1/7.html" } }
        let clock = ContinuousClock()
        let started = clock.now
        await workspace.server.stop(waitingUpTo: 30)
        #expect(clock.now - started < TestTime.bound(.seconds(5)))
        let answer = await waiting.value
        #expect(answer.map { (try? ServeWorkspace.object($0))?["isSuccess"]?.value } == .bool(false))
        #expect(try workspace.store.text(bookID: workspace.book.id, url: try workspace.store.chapters(bookID: workspace.book.id)[6].url) == nil)
        let late = try? await client.send("GET", "/getBookshelf")
        #expect(late == nil || late?.status == 503)
    }

    @Test("Replace rules apply to the text served, never to the text saved")
    func replaceRulesOnServedText() async throws {
        let workspace = try await ServeWorkspace()
        let word = String(MirrorSite.paragraphs(1)[0].prefix(2))
        let rules = ReplaceRuleSet(rules: [ReplaceRule(name: "mark", pattern: word, replacement: "【替换】", isRegex: false)])
        try rules.save(to: ReplaceRuleSet.path(forLibraryAt: workspace.store.path))
        let url = ServeWorkspace.encoded(workspace.site.bookURL)
        let served = try #require(try ServeWorkspace.data(try await workspace.get("/getBookContent?url=\(url)&index=0")).stringValue)
        let chapter = try #require(try workspace.store.chapters(bookID: workspace.book.id).first)
        let saved = try #require(try workspace.store.text(bookID: workspace.book.id, url: chapter.url))
        #expect(served.contains("【替换】"))
        #expect(!served.contains(word))
        #expect(saved.contains(word) && !saved.contains("【替换】"))
        // A chapter fetched while serving is saved as the site gave it, and served replaced.
        let fetched = try #require(try ServeWorkspace.data(try await workspace.get("/getBookContent?url=\(url)&index=6")).stringValue)
        let fetchedSaved = try #require(try workspace.store.text(bookID: workspace.book.id,
                                                                 url: try workspace.store.chapters(bookID: workspace.book.id)[6].url))
        #expect(fetched == fetchedSaved.replacingOccurrences(of: word, with: "【替换】"))
    }
}

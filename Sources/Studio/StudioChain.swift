import BookRuleCheck
import BookRuleEngine
import BookRuleHTTP
import BookRuleJSON
import Foundation

/// One step of the chain (search → book → TOC → chapter) run by the real engine, on the fixture (its HAR
/// and saved pages, plus the files the author opened) or live through the polite fetcher; a live run is
/// added to the fixture's HAR only when asked (`record`).
package struct StudioChain: Sendable {
    /// The fixture directory's real path, if any.
    package let fixtureDirectory: String?
    /// The polite fetcher for live steps; nil keeps the studio offline.
    package let fetcher: PoliteFetcher?

    /// What a step gave, as the page reads it.
    package struct Answer: Sendable, Codable {
        package var step: StudioStep
        /// The URL the step read (its page is now the step's page).
        package var url: String?
        package var search: [SearchResult]?
        package var book: BookInfo?
        /// The TOC's first chapters (`chapterCount` counts them all).
        package var chapters: [Chapter]?
        package var chapterCount: Int?
        package var tocPages: [String]?
        package var content: ChapterContent?
        package var warnings: [String] = []
        /// Each request the step made: `GET url -> 200`.
        package var requests: [String] = []
        /// Why the step failed, if it did.
        package var error: String?
        /// How many requests were added to the fixture's HAR.
        package var recorded: Int = 0
    }

    /// The fixture, laid out as `bookrule test` reads it.
    package var fixture: CheckFixture? { fixtureDirectory.map(CheckFixture.init(directory:)) }

    /// Where a live run is recorded.
    package var harPath: String? { fixture?.harPath }

    /// The transport answering from the fixture: saved pages (`opened`, then `pages.json`) first, then the HAR.
    package func fixtureTransport(opened: [SavedPage]) throws -> any HTTPTransport {
        try fixture?.transport(adding: opened) ?? SavedPageTransport(pages: opened)
    }

    /// Runs `step` of `source`; `url` is the page to start from (the book, TOC or chapter URL), `keyword` the
    /// search key (default: the source's `checkKeyWord`).
    package func run(_ step: StudioStep, source: BookSource, url: String?, keyword: String?, live: Bool, record: Bool,
                     opened: [SavedPage]) async -> (Answer, HTTPResponse?) {
        var answer = Answer(step: step, url: url)
        let capture: CapturingTransport
        let connection: SourceTransport
        var recorder: RecordingTransport?
        do {
            if live || record {
                guard let fetcher else {
                    throw StudioRefusal.conflict("the studio runs offline; start it with --live to fetch pages")
                }
                let upstream = SourceTransport(for: source, over: fetcher)
                if record {
                    guard harPath != nil else { throw StudioRefusal.conflict("there is no fixture directory to record into") }
                    let recording = RecordingTransport(upstream: upstream.transport)
                    recorder = recording
                    capture = CapturingTransport(upstream: recording)
                } else {
                    capture = CapturingTransport(upstream: upstream.transport)
                }
                connection = upstream.wrapped { _ in capture }
            } else {
                capture = CapturingTransport(upstream: try fixtureTransport(opened: opened))
                connection = SourceTransport(plain: capture)
            }
        } catch {
            answer.error = "\(error)"
            return (answer, nil)
        }
        let options = live || record ? EngineOptions() : EngineOptions(scriptClock: SourceCheck.replayClock)
        let engine = SourceEngine(source: source, connection: connection, options: options)
        do {
            switch step {
            case .search:
                let key = keyword ?? source.search.raw["checkKeyWord"]?.value.stringValue.flatMap { $0.isEmpty ? nil : $0 }
                guard let key else { throw StudioRefusal.badRequest(SourceCheck.missingKeyword) }
                let page = try await engine.search(key: key)
                answer.url = page.url
                answer.search = page.results
                answer.warnings = page.warnings
            case .book:
                guard let url else { throw StudioRefusal.badRequest("give the book page's URL (run the search, or type it)") }
                let book = try await engine.bookInfo(url: url)
                answer.book = book
                answer.warnings = book.warnings
            case .toc:
                guard let url else { throw StudioRefusal.badRequest("give the TOC's URL (run the book step, or type it)") }
                let toc = try await engine.toc(url: url)
                answer.chapters = Array(toc.chapters.prefix(200))
                answer.chapterCount = toc.chapters.count
                answer.tocPages = toc.pages
                answer.warnings = toc.warnings
            case .chapter:
                guard let url else { throw StudioRefusal.badRequest("give the chapter's URL (run the TOC step, or type it)") }
                let content = try await engine.content(of: Chapter(index: 0, title: "", url: url))
                answer.content = content
                answer.warnings = content.warnings
            }
        } catch {
            answer.error = "\(error)"
        }
        let exchanges = capture.exchanges
        answer.requests = exchanges.map { "\($0.request.method) \($0.request.url) -> \($0.response.status)" }
        if let recorder, answer.error == nil, let harPath {
            do {
                var recording = FileManager.default.fileExists(atPath: harPath) ? try HARRecording.load(contentsOf: harPath) : HARRecording()
                let added = recorder.recording.entries
                recording.entries.removeAll { old in
                    added.contains { $0.request.method == old.request.method && $0.request.url == old.request.url
                        && $0.request.postData?.body == old.request.postData?.body }
                }
                recording.entries += added
                try recording.write(to: harPath)
                answer.recorded = added.count
            } catch {
                answer.warnings.append("not recorded: \(error)")
            }
        }
        // The step's page: the answer for the URL it was given, else the first one.
        let page = exchanges.first { url != nil && $0.request.url == url }?.response ?? exchanges.first?.response
        return (answer, page)
    }
}

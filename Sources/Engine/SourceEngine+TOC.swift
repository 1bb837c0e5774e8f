import BookRuleDocument
import BookRuleHTTP
import BookRuleRules
import BookRuleScript

/// The table of contents: every page of it (`ruleToc`, `nextTocUrl`), chapters in order, volumes marked.
extension SourceEngine {
    /// Reads the whole table of contents of `book`, following `nextTocUrl` (never visiting a URL twice, at most
    /// `options.pageCap` pages) and de-duplicating chapters by URL.
    public func toc(of book: BookInfo) async throws -> TableOfContents {
        try await toc(url: book.tocURL, variables: book.variables, book: book)
    }

    /// Reads the whole table of contents starting at `url`; `book` is what scripts see as `book`.
    public func toc(url: String, variables: [String: String] = [:], book: BookInfo? = nil) async throws -> TableOfContents {
        try await offPoolForScripts { try await tocStep(url: url, variables: variables, book: book) }
    }

    private func tocStep(url: String, variables: [String: String], book: BookInfo?) async throws -> TableOfContents {
        let section = source.toc
        try requireRules(section, step: .toc)
        guard let listRule = section[.chapterList] else { throw EngineError.missingRule(field: "ruleToc.chapterList") }
        let start = try absoluteURL(url, field: "TOC URL")
        let store = RuleVariables(variables)
        var warnings = Warnings()
        var pages: [String] = []
        var visited: Set<String> = []
        var pending = [start]
        var followNext = true
        var entries: [Chapter] = []
        var incomplete: String?
        var elementCount = 0
        var titledCount = 0
        var linkedCount = 0

        while !pending.isEmpty {
            let pageURL = pending.removeFirst()
            let key = Self.pageKey(pageURL)
            if visited.contains(key) { continue }
            if pages.count >= options.pageCap {
                warnings.add("stopped after \(options.pageCap) TOC pages (the page cap); \(pending.count + 1) more not fetched")
                break
            }
            visited.insert(key)
            let document: HTMLDocument
            do {
                let headers = try requestHeaders(ScriptBindings(baseURL: pageURL, book: Self.scriptBook(book)))
                let page = try pageRequest(pageURL, headers: headers, field: "ruleBookInfo.tocUrl")
                document = try await fetchDocument(page.request, charset: nil, webView: page.webView.map { ($0, "ruleBookInfo.tocUrl") })
            } catch {
                // A later page that fails leaves the chapters read so far: most of a book beats none of it.
                guard !pages.isEmpty else { throw error }
                incomplete = "TOC page \(pages.count + 1) could not be read (\(error)); the list has the chapters of the \(pages.count) page(s) before it"
                warnings.add(incomplete ?? "")
                break
            }
            Self.noteTruncation(document, &warnings)
            visited.insert(Self.pageKey(document.url))
            pages.append(document.url)
            let environment = try ruleEnvironment(document.baseURL, variables: store,
                                              bindings: ScriptBindings(baseURL: document.baseURL, book: Self.scriptBook(book)))
            let base = URLReference.Base(document.baseURL)
            let items = try elements(listRule, in: document.rootContext, environment: environment, url: document.url,
                                     applyingReverse: false)
            var scratch = FieldScratch()
            entries.reserveCapacity(entries.count + items.count)
            // One reader moved along the elements: making one per element copied the section, the environment
            // and the base for each of thousands of chapters.
            var reader = FieldReader(section: section, context: document.rootContext, environment: environment,
                                     base: base, tracer: tracer)
            // A title or link rule ending in JavaScript runs for all the page's chapters in one call where that
            // gives the same values (docs/performance.md, issue #22).
            let perChapter: [RuleField] = [.isVolume, .chapterName, .chapterUrl, .isVip, .isPay, .updateTime]
            let titles = options.batchesListScripts
                ? reader.evaluatedForEach(.chapterName, of: items, others: perChapter.filter { $0 != .chapterName },
                                          warnings: warnings) : nil
            let links = options.batchesListScripts
                ? reader.evaluatedForEach(.chapterUrl, of: items, others: perChapter.filter { $0 != .chapterUrl },
                                          warnings: warnings) : nil
            for (index, item) in items.enumerated() {
                reader.context = item
                let isVolume = reader.flag(.isVolume, &warnings)
                let title = if let titles, index < titles.count {
                    reader.line(.chapterName, &warnings, evaluated: titles[index])
                } else {
                    reader.line(.chapterName, &warnings, scratch: &scratch)
                }
                let chapterURL = if let links, index < links.count {
                    reader.url(.chapterUrl, &warnings, evaluated: links[index]) ?? ""
                } else {
                    reader.url(.chapterUrl, &warnings, scratch: &scratch) ?? ""
                }
                elementCount += 1
                if !title.isEmpty { titledCount += 1 }
                if !chapterURL.isEmpty { linkedCount += 1 }
                if title.isEmpty && chapterURL.isEmpty { continue }
                entries.append(Chapter(index: 0, title: title, url: isVolume ? chapterURL : (chapterURL.isEmpty ? document.url : chapterURL),
                                       isVolume: isVolume, isVIP: reader.flag(.isVip, &warnings),
                                       isPay: reader.flag(.isPay, &warnings),
                                       updateTime: reader.line(.updateTime, &warnings, scratch: &scratch)))
            }
            guard followNext, let nextRule = section[.nextTocUrl] else { continue }
            let next = nextURLs(nextRule, in: document, environment: environment, warnings: &warnings)
                .filter { !visited.contains(Self.pageKey($0)) }
            // One next link is a chain to follow; several at once are all the pages, fetched without recursing.
            if next.count > 1 { followNext = false }
            pending.append(contentsOf: next)
        }

        // A field that came out empty in every element means the rule, not the site, is wrong: say which.
        if elementCount > 0 {
            if titledCount == 0, section[.chapterName] != nil {
                throw EngineError.fieldEmptyEverywhere(field: "ruleToc.chapterName", list: "ruleToc.chapterList", elements: elementCount,
                                                       cause: warnings.failure(of: "ruleToc.chapterName"))
            }
            if linkedCount == 0 {
                throw EngineError.fieldEmptyEverywhere(field: "ruleToc.chapterUrl", list: "ruleToc.chapterList", elements: elementCount,
                                                       cause: warnings.failure(of: "ruleToc.chapterUrl"))
            }
        }
        if listRule.reversed { entries.reverse() }
        // De-duplicate keeping the LAST occurrence, as Legado does: a "latest chapters" block above the full
        // list then drops out instead of putting the newest chapters first.
        let (kept, duplicates) = DuplicateChapters.marked(in: entries)
        // Compacted in place (swaps move chapters without copying their strings), then numbered.
        var chapters = entries
        entries = []
        var count = 0
        for index in chapters.indices where kept[index] {
            if index != count { chapters.swapAt(index, count) }
            chapters[count].index = count
            count += 1
        }
        chapters.removeLast(chapters.count - count)
        // Counted on the list as it is returned: a `javascript:` link repeated on every entry is one chapter.
        var nonHTTP = 0
        var firstNonHTTP: String?
        // Resolved links almost always start with a lower-case scheme: skip the parse for those.
        // Read in place, by index: a `for chapter in` loop copied every chapter (a retain and a release for each
        // of its strings).
        for index in chapters.indices where !chapters[index].isVolume
            && !URLReference.hasLowercaseHTTPScheme(chapters[index].url) && !URLReference.isHTTP(chapters[index].url) {
            nonHTTP += 1
            if firstNonHTTP == nil { firstNonHTTP = chapters[index].url }
        }
        if let firstNonHTTP {
            warnings.add("\(nonHTTP) chapter URL(s) are not http(s) links (the first: \"\(firstNonHTTP)\"); they cannot be fetched as they are (a javascript: link usually means the real URL is in the script's arguments)")
        }
        if duplicates > 0 { warnings.add("dropped \(duplicates) chapter(s) whose URL is listed again later") }
        noteScriptMessages(&warnings)
        return TableOfContents(chapters: chapters, pages: pages, warnings: warnings.list, droppedDuplicates: duplicates,
                               incomplete: incomplete, nonHTTPChapterURLs: nonHTTP)
    }
}

import BookRuleDocument
import BookRuleHTTP
import BookRuleRules
import BookRuleScript

/// Runs one book source against its site: search, book info, the whole table of contents, chapter text.
///
/// The engine holds no mutable state: every call fetches through the transport it was given (the polite
/// fetcher, a HAR replay, an in-memory site in tests) and returns plain models, so one engine may serve many
/// concurrent calls.
public struct SourceEngine: Sendable {
    /// The source whose rules run.
    public let source: BookSource
    /// Where requests go.
    public let transport: any HTTPTransport
    /// The source's cookie jar (a webView page is seeded from it and leaves its cookies in it), nil when the
    /// engine keeps none.
    public let cookies: CookieJar?
    /// The source's stored login (what `logIn` and scripts' `putLoginHeader` change), nil when the engine has
    /// no login store.
    public let login: SourceLoginTransport?
    /// Page caps and other limits.
    public let options: EngineOptions
    /// Receives what every rule and fetch did, for `bookrule test`; nil in normal use.
    public let tracer: (any RuleTracing)?
    /// The source's JavaScript runtime and host; nil for a source without scripts.
    let scripts: SourceScripts?

    /// Creates an engine for `source` sending requests through `connection` (what `TransportStack.transport(for:)`
    /// gives), with its cookie jar and login.
    public init(source: BookSource, connection: SourceTransport, options: EngineOptions = EngineOptions(),
                tracer: (any RuleTracing)? = nil) {
        self.init(source: source, connection: connection, options: options, tracer: tracer, needsScripts: source.hasScripts)
    }

    /// An engine whose script runtime exists when `needsScripts` says so: an RSS source's rules are not the
    /// book source's (`RssSource.engineSource`), so whether they run JavaScript is for the RSS source to say.
    init(source: BookSource, connection: SourceTransport, options: EngineOptions, tracer: (any RuleTracing)?,
         needsScripts: Bool) {
        self.source = source
        transport = connection.transport
        cookies = connection.cookies
        login = connection.login
        self.options = options
        self.tracer = tracer
        scripts = needsScripts ? SourceScripts(source: source, connection: connection, options: options) : nil
    }

    /// Creates an engine for `source` sending requests through `transport` as it is: no cookie jar of its own
    /// and no login (`init(source:connection:)` gives them).
    public init(source: BookSource, transport: any HTTPTransport, options: EngineOptions = EngineOptions(),
                tracer: (any RuleTracing)? = nil) {
        self.init(source: source, connection: SourceTransport(plain: transport), options: options, tracer: tracer)
    }

    // MARK: - Search

    /// Searches the site for `key` and reads every result on the page.
    public func search(key: String, page: Int = 1) async throws -> SearchPage {
        try await offPoolForScripts { try await searchStep(key: key, page: page) }
    }

    private func searchStep(key: String, page: Int) async throws -> SearchPage {
        let section = source.search
        try requireRules(section, step: .search)
        guard let template = source.searchURL else { throw EngineError.missingRule(field: "searchUrl") }
        return try await bookListPage(template, key: key, page: page, section: section, step: .search)
    }

    // MARK: - Explore

    /// The categories of the source's `exploreUrl` (Legado's explore screen), as written or as its script
    /// gives them; headers (entries without a URL) included, in order.
    public func exploreCategories() async throws -> [ExploreCategory] {
        try await offPoolForScripts { try exploreCategoriesStep() }
    }

    private func exploreCategoriesStep() throws -> [ExploreCategory] {
        guard source.exploreURL != nil else { throw EngineError.missingRule(field: "exploreUrl") }
        if let categories = source.exploreCategories { return categories }
        guard let snippet = source.exploreScript, let scripts else {
            throw EngineError.unusableRules(step: SourceStep.explore.rawValue,
                                            problems: source.problems.filter { $0.field.hasSuffix("exploreUrl") })
        }
        let scope = try scripts.scope(ScriptBindings(page: 1, baseURL: source.url))
        let fail = { (reason: String) in
            EngineError.rule(url: source.url, error: RuleError(field: snippet.field, dialect: .javaScript, reason: reason,
                                                               rule: snippet.code))
        }
        let text: String
        do {
            text = try scope.run(snippet, result: .none, in: .text(""),
                                 environment: RuleEnvironment(baseURL: source.url, script: scope)).strings.joined()
        } catch {
            throw fail("\(error)")
        }
        do {
            return try ExploreCategory.parse(text)
        } catch {
            throw fail("the script gave neither title::url lines nor a JSON array of categories: \(error.reason)")
        }
    }

    /// Lists the books of one explore category page: `url` is the category's URL template (`{{page}}` is
    /// `page`), read with `ruleExplore`, or with `ruleSearch` when `ruleExplore` has no `bookList`.
    public func explore(url: String, page: Int = 1) async throws -> SearchPage {
        try await offPoolForScripts { try await exploreStep(url: url, page: page) }
    }

    private func exploreStep(url: String, page: Int) async throws -> SearchPage {
        let section = source.exploreListSection
        try requireRules(section, step: .explore)
        let template: URLTemplate
        do {
            template = try URLTemplate(url, field: "exploreUrl")
        } catch {
            throw EngineError.unusableRules(step: SourceStep.explore.rawValue, problems: [
                SourceProblem(field: error.field, location: nil, dialect: error.dialect, reason: error.reason),
            ])
        }
        return try await bookListPage(template, key: nil, page: page, section: section, step: .explore)
    }

    /// Fetches one page of books (a search or an explore category) and reads every book `section` lists.
    private func bookListPage(_ template: URLTemplate, key: String?, page: Int, section: RuleSection,
                              step: SourceStep) async throws -> SearchPage {
        let request: HTTPRequest
        let webView: WebViewOptions?
        do {
            let bindings = ScriptBindings(key: key, page: page, baseURL: source.url)
            (request, webView) = try template.resolved(key: key ?? "", page: page, baseURL: source.url,
                                           sourceHeaders: try requestHeaders(bindings), script: try scripts?.scope(bindings))
        } catch let error as EngineError {
            throw error
        } catch let error as RuleError {
            throw EngineError.unusableRules(step: step.rawValue, problems: [
                SourceProblem(field: error.field, location: nil, dialect: error.dialect, reason: error.reason),
            ])
        }
        let document = try await fetchDocument(request, charset: template.charset, webView: webView.map { ($0, template.field) })
        var warnings = Warnings()
        Self.noteTruncation(document, &warnings)
        let searchBindings = ScriptBindings(key: key, page: page, baseURL: document.baseURL)
        let environment = try ruleEnvironment(document.baseURL, bindings: searchBindings)
        let items = try section[.bookList].map { rule in
            try elements(rule, in: document.rootContext, environment: environment, url: document.url)
        } ?? []
        var results: [SearchResult] = []
        for item in items {
            let variables = RuleVariables()
            let itemEnvironment = try ruleEnvironment(document.baseURL, variables: variables, bindings: searchBindings)
            let reader = FieldReader(section: section, context: item, environment: itemEnvironment, tracer: tracer)
            let name = reader.line(.name, &warnings)
            guard !name.isEmpty else { continue }
            let bookURL = reader.url(.bookUrl, &warnings) ?? document.url
            results.append(SearchResult(
                name: name, author: reader.line(.author, &warnings), intro: reader.paragraphs(.intro, &warnings),
                kind: reader.list(.kind, &warnings), lastChapter: reader.line(.lastChapter, &warnings),
                updateTime: reader.line(.updateTime, &warnings), bookURL: bookURL,
                coverURL: reader.url(.coverUrl, &warnings) ?? "", wordCount: reader.line(.wordCount, &warnings),
                variables: variables.snapshot))
        }
        // A search that lands straight on a book page (one hit) is read as that book, as Legado does.
        if results.isEmpty, let pattern = source.bookURLPattern, (try? pattern.matches(document.url)) == true {
            let info = try readBookInfo(document, variables: RuleVariables(), warnings: &warnings)
            results.append(SearchResult(name: info.name, author: info.author, intro: info.intro, kind: info.kind,
                                        lastChapter: info.lastChapter, updateTime: info.updateTime,
                                        bookURL: info.url, coverURL: info.coverURL, wordCount: info.wordCount,
                                        variables: info.variables))
        }
        noteScriptMessages(&warnings)
        return SearchPage(url: document.url, results: results, warnings: warnings.list)
    }

    // MARK: - Book info

    /// Reads the book page at `url`. `variables` carries `@put` values from the search result.
    public func bookInfo(url: String, variables: [String: String] = [:]) async throws -> BookInfo {
        try await offPoolForScripts { try await bookInfoStep(url: url, variables: variables) }
    }

    private func bookInfoStep(url: String, variables: [String: String]) async throws -> BookInfo {
        try requireRules(source.bookInfo, step: .bookInfo)  // before fetching: a refused step sends nothing
        let absolute = try absoluteURL(url, field: "book URL")
        let headers = try requestHeaders(ScriptBindings(baseURL: absolute))
        let page = try pageRequest(absolute, headers: headers, field: "ruleSearch.bookUrl")
        let document = try await fetchDocument(page.request, charset: nil, webView: page.webView.map { ($0, "ruleSearch.bookUrl") })
        var warnings = Warnings()
        Self.noteTruncation(document, &warnings)
        var info = try readBookInfo(document, variables: RuleVariables(variables), warnings: &warnings)
        noteScriptMessages(&warnings)
        info.warnings = warnings.list
        return info
    }

    private func readBookInfo(_ document: HTMLDocument, variables: RuleVariables, warnings: inout Warnings) throws -> BookInfo {
        let section = source.bookInfo
        try requireRules(section, step: .bookInfo)
        let environment = try ruleEnvironment(document.baseURL, variables: variables,
                                          bindings: ScriptBindings(baseURL: document.baseURL))
        var context = document.rootContext
        if let initRule = section[.initRule] {
            let selected = try elements(initRule, in: context, environment: environment, url: document.url)
            guard let first = selected.first else {
                throw EngineError.rule(url: document.url, error: RuleError(
                    field: initRule.field, dialect: initRule.dialect, reason: "selected nothing on the book page",
                    rule: initRule.text))
            }
            context = first
        }
        let reader = FieldReader(section: section, context: context, environment: environment, tracer: tracer)
        var info = BookInfo(
            url: document.url, name: reader.line(.name, &warnings), author: reader.line(.author, &warnings),
            intro: reader.paragraphs(.intro, &warnings), kind: reader.list(.kind, &warnings),
            lastChapter: reader.line(.lastChapter, &warnings), updateTime: reader.line(.updateTime, &warnings),
            coverURL: reader.url(.coverUrl, &warnings) ?? "", tocURL: reader.url(.tocUrl, &warnings) ?? document.url,
            wordCount: reader.line(.wordCount, &warnings), variables: [:], warnings: [])
        info.variables = variables.snapshot
        info.warnings = warnings.list
        return info
    }

    // MARK: - Table of contents

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

    // MARK: - Content

    /// Reads the clean text of `chapter`, following `nextContentUrl` until it points at `next` (the following
    /// chapter), back at the book's page or TOC (`book`, where the last chapter's "next" link usually goes),
    /// repeats a page, or runs out.
    public func content(of chapter: Chapter, next: Chapter? = nil, book: BookInfo? = nil,
                        variables: [String: String] = [:]) async throws -> ChapterContent {
        try await offPoolForScripts { try await contentStep(of: chapter, next: next, book: book, variables: variables) }
    }

    private func contentStep(of chapter: Chapter, next: Chapter?, book: BookInfo?,
                             variables: [String: String]) async throws -> ChapterContent {
        let section = source.content
        try requireRules(section, step: .content)
        guard let contentRule = section[.content] else { throw EngineError.missingRule(field: "ruleContent.content") }
        let start = try absoluteURL(chapter.url, field: "chapter URL")
        var stopKeys = Set([next?.url, book?.url, book?.tocURL].compactMap { $0 }.map(Self.pageKey))
        stopKeys.remove("")
        let store = RuleVariables(variables)
        let bindings = ScriptBindings(
            baseURL: start, book: Self.scriptBook(book),
            chapter: ScriptChapter(title: chapter.title, url: chapter.url, index: chapter.index, baseURL: start,
                                   isVIP: chapter.isVIP, isVolume: chapter.isVolume),
            title: chapter.title, nextChapterURL: next?.url)
        var warnings = Warnings()
        var pages: [String] = []
        var visited: Set<String> = []
        var pending = [start]
        var followNext = true
        var parts: [String] = []
        var title: String?
        var media: [String] = []
        var obfuscation = ObfuscatedText.Findings()
        var fonts: WebFontReport?
        var privateUse: [UInt32: UInt32] = [:]

        while !pending.isEmpty {
            let pageURL = pending.removeFirst()
            let key = Self.pageKey(pageURL)
            if visited.contains(key) || stopKeys.contains(key) { continue }
            if pages.count >= options.pageCap {
                warnings.add("stopped after \(options.pageCap) pages of this chapter (the page cap)")
                break
            }
            visited.insert(key)
            let headers = try requestHeaders(bindings)
            let page = try pageRequest(pageURL, headers: headers, field: "ruleToc.chapterUrl")
            let document = try await fetchDocument(page.request, charset: nil,
                                                   webView: page.webView.map { (source.contentWebViewDefaults($0), "ruleToc.chapterUrl") })
            Self.noteTruncation(document, &warnings)
            if let decoded = await decodeWebFonts(in: document, headers: headers) {
                var merged = fonts ?? WebFontReport()
                merged.merge(decoded.report)
                fonts = merged
                privateUse.merge(decoded.privateUse) { first, _ in first }
            }
            visited.insert(Self.pageKey(document.url))
            pages.append(document.url)
            var pageBindings = bindings
            pageBindings.baseURL = document.baseURL
            let environment = try ruleEnvironment(document.baseURL, variables: store, bindings: pageBindings)
            var contentEnvironment = environment
            contentEnvironment.keepsPictures = source.type == .text
            let values = try traced(contentRule, url: document.url) { () throws(RuleError) in
                try contentRule.texts(in: document.rootContext, environment: contentEnvironment)
            }
            let strings = values.map(\.text)
            obfuscation.read(document) { values.map(FieldReader.text(of:)) }
            // A text source's pictures stay in its text as image lines; an audio or image source's media
            // links are its `mediaURLs` instead.
            if source.type == .text {
                parts.append(contentsOf: values.map { FieldReader.contentText(of: $0, baseURL: document.baseURL) })
            } else {
                parts.append(contentsOf: values.map(FieldReader.text(of:)))
            }
            if source.type == .audio || source.type == .image {
                media += MediaLinks.urls(in: strings, baseURL: document.baseURL)
            }
            if title == nil, section[.title] != nil {
                let reader = FieldReader(section: section, context: document.rootContext, environment: environment, tracer: tracer)
                let value = reader.line(.title, &warnings)
                if !value.isEmpty { title = value }
            }
            guard followNext, let nextRule = section[.nextContentUrl] else { continue }
            let nextPages = nextURLs(nextRule, in: document, environment: environment, warnings: &warnings)
                .filter { !visited.contains(Self.pageKey($0)) && !stopKeys.contains(Self.pageKey($0)) }
            if nextPages.count > 1 { followNext = false }
            pending.append(contentsOf: nextPages)
        }

        var text = HTMLTextFormatter.paragraphs(of: Self.replacingPrivateUse(in: parts.joined(separator: "\n"), with: privateUse))
        let found = text.count
        if let replace = section[.replaceRegex] {
            let environment = try ruleEnvironment(start, variables: store, bindings: bindings)
            text = try traced(replace, url: start) { () throws(RuleError) in
                [try replace.string(in: .text(text), environment: environment)]
            }.joined()
            text = HTMLTextFormatter.paragraphs(of: text)
        }
        var seen: Set<String> = []
        media = media.filter { seen.insert($0).inserted }
        // A font that was decoded no longer makes the text suspect; one that could not be is named with why.
        let decodedFamilies = Set(fonts?.fonts.filter { $0.error == nil }.map { $0.family.lowercased() } ?? [])
        var failedFamilies: [String: String] = [:]
        for font in fonts?.fonts ?? [] { if let error = font.error { failedFamilies[font.family.lowercased()] = error } }
        for warning in obfuscation.warnings(text: text, field: "ruleContent.content", decoded: decodedFamilies,
                                            failed: failedFamilies) {
            warnings.add(warning)
        }
        if let fonts {
            if !fonts.lowConfidence.isEmpty {
                warnings.add("ruleContent.content: \(fonts.lowConfidence.count) web-font glyph(s) read with low confidence (kept "
                    + "as the best guess): " + fonts.lowConfidence.prefix(12).map { guess in
                        "\(guess.codePoint)→\(guess.character)" + (guess.runnerUp.map { " (or \($0))" } ?? "")
                    }.joined(separator: ", ") + (fonts.lowConfidence.count > 12 ? ", …" : ""))
            }
        }
        noteScriptMessages(&warnings)
        var content = ChapterContent(url: start, title: title, text: text, pages: pages, warnings: warnings.list, mediaURLs: media)
        content.fonts = fonts
        if text.isEmpty {
            let pageList = pages.count == 1 ? pages[0] : "\(pages.count) pages"
            content.emptyReason = found == 0
                ? "ruleContent.content found no text on \(pageList)"
                : "ruleContent.replaceRegex removed all \(found) characters ruleContent.content found on \(pageList)"
        }
        return content
    }

    // MARK: - Plumbing

    /// Runs a step of a source with scripts on its runtime's thread (see `ScriptRuntime.stepExecutor`), so its
    /// rules' JavaScript runs without a hand-over per evaluation, with the step's own fetches on a thread of
    /// their own (see `fetchDocument`). Its rules run synchronously, and a script that fetches (`java.ajax`) blocks the thread
    /// evaluating it until the answer comes; on Swift's pool (two threads on a two-core machine) two such
    /// steps could hold every thread while a third task that the fetches wait for (another request to the same
    /// host, in its turn) could not resume. A source without scripts never blocks and stays on the pool.
    func offPoolForScripts<T: Sendable>(_ body: () async throws -> T) async throws -> T {
        guard let scripts else { return try await body() }
        return try await withTaskExecutorPreference(scripts.stepExecutor ?? SerialQueueExecutor.scriptFetch()) { try await body() }
    }

    /// What rules of a step run with: the page's URL, the book's variables, and for a source with scripts the
    /// script runtime bound to the step's `key`, `page`, `book`, `chapter`…
    func ruleEnvironment(_ baseURL: String, variables: RuleVariables = RuleVariables(),
                             bindings: ScriptBindings) throws(EngineError) -> RuleEnvironment {
        RuleEnvironment(baseURL: baseURL, variables: variables, script: try scripts?.scope(bindings))
    }

    /// The headers every request of the source sends: `header`, or what its script computes.
    func requestHeaders(_ bindings: ScriptBindings) throws(EngineError) -> [HTTPHeader] {
        try scripts?.headers(bindings: bindings) ?? source.headers
    }

    /// `java.log` and `toast` messages of the step's scripts, as warnings.
    func noteScriptMessages(_ warnings: inout Warnings) {
        for message in scripts?.host.drainMessages() ?? [] { warnings.add(message) }
    }

    /// A book as scripts see it.
    static func scriptBook(_ book: BookInfo?) -> ScriptBook? {
        guard let book else { return nil }
        return ScriptBook(name: book.name, author: book.author, bookURL: book.url, tocURL: book.tocURL,
                          kind: book.kind, intro: book.intro, coverURL: book.coverURL,
                          latestChapterTitle: book.lastChapter, wordCount: book.wordCount)
    }

    /// Fetches and parses a page, turning statuses and transport failures into `EngineError`s.
    func fetchDocument(_ request: HTTPRequest, charset: String?, webView: (options: WebViewOptions, field: String)? = nil) async throws -> HTMLDocument {
        let clock = ContinuousClock()
        let start = clock.now
        var trace = FetchTrace(url: request.url, finalURL: request.url, method: request.method, status: nil,
                               decoding: nil, bytes: 0, milliseconds: 0, error: nil)
        defer {
            if let tracer {
                let elapsed = clock.now - start
                trace.milliseconds = Double(elapsed.components.seconds) * 1000 + Double(elapsed.components.attoseconds) / 1e15
                tracer.record(fetch: trace)
            }
        }
        var response: HTTPResponse
        do {
            if let webView {
                response = try await rendered(request, webView.options, field: webView.field)
            } else if scripts?.stepExecutor != nil {
                // A step of a source with scripts runs on its runtime's thread, which a script's blocking
                // `java.ajax` may hold while it waits for its turn at the host: the request's turn must be
                // given back (in the fetcher's code after the answer) on a thread that is not held, and not
                // on Swift's pool either (see `offPoolForScripts`).
                response = try await withTaskExecutorPreference(SerialQueueExecutor.scriptFetch()) { try await transport.send(request) }
            } else {
                response = try await transport.send(request)
            }
        } catch {
            trace.error = "\(error)"
            throw EngineError.transport(url: request.url, error: error)
        }
        response = try await checkedLogin(response, for: request)
        trace.finalURL = response.url
        trace.status = response.status
        trace.bytes = response.body.count
        guard (200..<300).contains(response.status) else {
            let page = response.body.count < Self.antiBotPageLimit
                ? AntiBotPage.detect(html: String(decoding: response.body, as: UTF8.self), status: response.status) : nil
            let error = page.map { EngineError.blocked(url: response.url, status: response.status, page: $0) }
                ?? EngineError.httpStatus(url: response.url, status: response.status)
            trace.error = error.description
            throw error
        }
        do {
            let document = try await HTMLDocument.parsed(bytes: response.body, url: response.url,
                                                         contentType: response.contentType, charsetOption: charset,
                                                         savedCharset: response.savedCharset)
            trace.decoding = document.charset.description
            return document
        } catch {
            trace.error = error.description
            throw EngineError.document(url: response.url, error: error)
        }
    }

    private func nextURLs(_ rule: Rule, in document: HTMLDocument, environment: RuleEnvironment, warnings: inout Warnings) -> [String] {
        let values: [String]
        do {
            values = try rule.strings(in: document.rootContext, environment: environment)
            tracer?.record(rule, values: values)
        } catch {
            tracer?.record(rule, values: [], error: error.description)
            warnings.add(error.description)
            return []
        }
        var result: [String] = []
        for line in values.flatMap({ $0.split(whereSeparator: \.isNewline) }) {
            let trimmed = line.trimmingASCIIWhitespace()
            guard !trimmed.isEmpty, !trimmed.lowercased().hasPrefix("javascript:"),
                  let absolute = URLReference.resolve(trimmed, against: document.baseURL),
                  URLReference.isHTTP(absolute), !result.contains(absolute) else { continue }
            result.append(absolute)
        }
        return result.filter { Self.pageKey($0) != Self.pageKey(document.url) }
    }

    private func requireRules(_ section: RuleSection, step: SourceStep) throws {
        try source.requireUsable(for: [step])
        if let list = section.name.fields.first, list.isList, list != .initRule, section[list] == nil {
            throw EngineError.missingRule(field: "\(section.name.rawValue).\(list.rawValue)")
        }
    }

    private func absoluteURL(_ url: String, field: String) throws -> String {
        let (address, webView) = Self.splitWebView(url)
        guard let absolute = URLReference.resolve(address, against: source.url), URLReference.isHTTP(absolute) else {
            throw EngineError.invalidURL(field: field, url: url)
        }
        return webView.map { absolute + "," + $0 } ?? absolute
    }

    /// Runs a list rule, reporting it to the tracer and turning its failure into an `EngineError`.
    func elements(_ rule: Rule, in context: RuleContext, environment: RuleEnvironment, url: String,
                          applyingReverse: Bool = true) throws -> [RuleContext] {
        do {
            let result = try rule.elements(in: context, environment: environment, applyingReverse: applyingReverse)
            tracer?.record(list: rule, count: result.count)
            return result
        } catch {
            tracer?.record(list: rule, count: 0, error: error.description)
            throw EngineError.rule(url: url, error: error)
        }
    }

    /// Runs a string rule whose failure fails the step, reporting it to the tracer.
    private func traced(_ rule: Rule, url: String, _ body: () throws(RuleError) -> [String]) throws -> [String] {
        try traced(rule, url: url) { () throws(RuleError) in try body().map { RuleText($0, isMarkup: false) } }.map(\.text)
    }

    /// `traced` for a rule's values with their kind (markup or text).
    func traced(_ rule: Rule, url: String, _ body: () throws(RuleError) -> [RuleText]) throws -> [RuleText] {
        do {
            let values = try body()
            tracer?.record(rule, values: values.map(\.text))
            return values
        } catch {
            tracer?.record(rule, values: [], error: error.description)
            throw EngineError.rule(url: url, error: error)
        }
    }

    /// Warns when libxml2 could not read a page to its end, and (see `noteCharset`) when the page's declared
    /// charset was overruled.
    static func noteTruncation(_ document: HTMLDocument, _ warnings: inout Warnings) {
        noteCharset(document, &warnings)
        noteAntiBot(document, &warnings)
        if document.isTruncated {
            warnings.add("\(document.url): the page nests markup more than \(HTMLDocument.maxDepth) levels deep; libxml2 stopped there, so anything after it is missing")
        }
    }

    /// Says when the charset a page declares was not the one used (a page re-saved as UTF-8 that still says
    /// gbk, or an unknown label): the text is right, but the author should know the page lies.
    static func noteCharset(_ document: HTMLDocument, _ warnings: inout Warnings) {
        if let note = document.charset.note {
            warnings.add("\(document.url): decoded as \(document.charset.charset): \(note)")
        } else if document.charset.reason == .fallback {
            warnings.add("\(document.url): declares no charset and is not UTF-8; too short for a confident guess, it was decoded as \(document.charset.charset) (the fallback): if its text is garbled, give the source's URL a charset option (,{\"charset\": \"shift_jis\"})")
        }
        let replacements = document.replacementCharacterCount
        if replacements > 0 {
            warnings.add("\(document.url): \(replacements) byte sequence(s) are not valid \(document.charset.charset) and show as U+FFFD (\u{FFFD}); decoded as \(document.charset)")
        }
    }

    /// Anti-bot pages are small; real TOC pages often are not, and need no look.
    static let antiBotPageLimit = 256 * 1024

    /// Names an anti-bot page answered with 200 (a challenge, a script-redirect stub): the rules will find
    /// nothing on it, and the warning says why instead of "found no chapters".
    static func noteAntiBot(_ document: HTMLDocument, _ warnings: inout Warnings) {
        guard document.sourceByteCount < antiBotPageLimit, document.json == nil,
              let page = AntiBotPage.detect(html: document.sourceText, status: 200) else { return }
        warnings.add("\(document.url): the answer is \(page), not the page the rules expect")
    }

    /// The identity of a page for "visited" checks: the URL without its fragment.
    static func pageKey(_ url: String) -> String {
        URLReference.withoutFragment(url)
    }
}

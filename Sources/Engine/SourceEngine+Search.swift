import BookRuleDocument
import BookRuleHTTP
import BookRuleRules
import BookRuleScript

/// Search and explore: a list page of books (`searchUrl`, an explore category) read into results.
extension SourceEngine {
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
}

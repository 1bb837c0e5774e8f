import BookRuleDocument
import BookRuleHTTP
import BookRuleRules
import BookRuleScript

/// The book page: its details (`ruleBookInfo`), and the TOC URL.
extension SourceEngine {
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

    func readBookInfo(_ document: HTMLDocument, variables: RuleVariables, warnings: inout Warnings) throws -> BookInfo {
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
}

import BookRuleDocument
import BookRuleHTTP
import BookRuleRules
import BookRuleScript

/// A chapter's text: every page of it (`ruleContent`, `nextContentUrl`), cleaned, with its pictures.
extension SourceEngine {
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
}

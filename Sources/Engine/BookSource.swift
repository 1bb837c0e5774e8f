import BookRuleDocument
import BookRuleHTTP
import BookRuleJSON
import BookRuleRegex
import BookRuleRules

/// One book source: how one site's search page, book page, TOC and chapter pages turn into models.
///
/// Read from Legado's JSON format; every rule is compiled when the source loads. Fields bookrule does not use
/// are kept in `json`. A field that cannot be used (a broken rule, an unsupported dialect, a value of the
/// wrong type) is recorded in `problems` and the source still loads, so lint can list everything at once and
/// the steps that don't need the broken field still run.
public struct BookSource: Sendable {
    /// `bookSourceUrl`: the source's id and the base for its relative URLs.
    public let url: String
    /// `bookSourceName`.
    public let name: String
    /// `bookSourceGroup`.
    public let group: String?
    /// `bookSourceType`.
    public let type: BookSourceType
    /// `header`, parsed (it is a JSON object written as a string, usually with single quotes).
    public let headers: [HTTPHeader]
    /// `header` written as JavaScript (`@js:…` or `<js>…</js>`), whose result is the JSON object of headers.
    public let headerScript: ScriptSnippet?
    /// `jsLib`: JavaScript loaded once into the scope of every snippet of this source.
    public let jsLib: String?
    /// `concurrentRate` as written ("N" ms between requests, or "a/b": a requests per b ms).
    public let concurrentRate: String?
    /// `enabledCookieJar` (Legado's default is on).
    public let enabledCookieJar: Bool
    /// `searchUrl`, parsed.
    public let searchURL: URLTemplate?
    /// `bookUrlPattern`, compiled: a search that lands on a book page is recognised by it.
    public let bookURLPattern: RegexPattern?
    /// `exploreUrl` as written (categories to browse), or nil when absent or blank.
    public let exploreURL: String?
    /// `exploreUrl` written as JavaScript (`@js:…`, `<js>…</js>`), whose result lists the categories.
    public let exploreScript: ScriptSnippet?
    /// The categories of an `exploreUrl` written as text or a JSON array (nil when it is JavaScript or absent).
    public let exploreCategories: [ExploreCategory]?
    /// `ruleSearch`: the rule sections.
    public let search: RuleSection
    /// `ruleBookInfo`.
    public let bookInfo: RuleSection
    /// `ruleToc`.
    public let toc: RuleSection
    /// `ruleContent`.
    public let content: RuleSection
    /// `ruleExplore`: how an explore category's page lists books (see `exploreListSection`).
    public let explore: RuleSection
    /// Every field that could not be used, in file order.
    public private(set) var problems: [SourceProblem]
    /// `loginUrl`, `loginUi` and `loginCheckJs`: how to log in, and how to notice a lost login.
    public let login: LoginRules
    /// Whether `exploreUrl` needs the script runtime (it is JavaScript, or a category URL holds a script).
    let exploreNeedsScript: Bool
    /// The whole source object as written, unknown keys included.
    public let json: JSONObject
    /// The file the source came from and its index when the file holds an array.
    public let origin: SourceOrigin

    /// Reads every book source in a file holding one source object or an array of them (RSS sources set aside).
    public static func load(contentsOf path: String) throws(SourceFileError) -> [BookSource] {
        let bytes: [UInt8]
        do {
            bytes = try LocalFile.read(path)
        } catch {
            throw SourceFileError.unreadable(path: path, reason: error.reason)
        }
        return try load(bytes: bytes, path: path)
    }

    /// Reads every book source in `bytes` (named `path` in messages). RSS sources in the same file are set
    /// aside (`SourceFile` has both kinds); a file holding only RSS sources is refused, saying so.
    public static func load(bytes: [UInt8], path: String) throws(SourceFileError) -> [BookSource] {
        let file = try SourceFile.load(bytes: bytes, path: path)
        if file.bookSources.isEmpty, !file.rssSources.isEmpty {
            throw SourceFileError.onlyRssSources(path: path, count: file.rssSources.count)
        }
        return file.bookSources
    }

    /// Compiles a source from its JSON object.
    public init(object: JSONObject, location: SourceLocation, origin: SourceOrigin) {
        let prefix = origin.index.map { "[\($0)]." } ?? ""
        var problems: [SourceProblem] = []
        func string(_ key: String) -> String? {
            guard let node = object[key] else { return nil }
            switch node.value {
            case .string(let value): return value
            case .number(let literal): return literal
            case .null: return nil
            default:
                problems.append(SourceProblem(field: prefix + key, location: node.location,
                                              reason: "expected a string, found \(node.value.typeName)"))
                return nil
            }
        }
        json = object
        self.origin = origin
        let sourceURL = string("bookSourceUrl")?.trimmingASCIIWhitespace() ?? ""
        if sourceURL.isEmpty {
            problems.append(SourceProblem(field: prefix + "bookSourceUrl", location: object["bookSourceUrl"]?.location ?? location,
                                          reason: "missing: every source needs its site's URL"))
        } else if !URLReference.isHTTP(sourceURL) {
            problems.append(SourceProblem(field: prefix + "bookSourceUrl", location: object["bookSourceUrl"]?.location,
                                          reason: "\"\(sourceURL)\" is not an http(s) URL"))
        }
        url = sourceURL
        name = string("bookSourceName") ?? sourceURL
        group = string("bookSourceGroup")
        if let node = object["bookSourceType"], node.value != .null {
            if let value = node.value.intValue ?? node.value.stringValue.flatMap({ Int($0) }),
               let known = BookSourceType(rawValue: value) {
                type = known
            } else {
                type = .text
                problems.append(SourceProblem(field: prefix + "bookSourceType", location: node.location,
                                              reason: "expected 0 (text), 1 (audio), 2 (image) or 3 (file)"))
            }
        } else {
            type = .text
        }
        concurrentRate = string("concurrentRate")
        if let rate = concurrentRate {
            do {
                _ = try ConcurrentRate.parse(rate)
            } catch {
                problems.append(SourceProblem(field: prefix + "concurrentRate", location: object["concurrentRate"]?.location,
                                              reason: "\(error)"))
            }
        }
        switch object["enabledCookieJar"]?.value {
        case .bool(let value)?: enabledCookieJar = value
        case .string(let text)? where text.lowercased() == "false" || text == "0": enabledCookieJar = false
        default: enabledCookieJar = true
        }

        var headers: [HTTPHeader] = []
        var headerScript: ScriptSnippet?
        if let node = object["header"] {
            if case .string(let text) = node.value, let code = Self.wholeScript(text) {
                // Legado runs a header as JavaScript only when it starts so (BookSource.getHeaderMap).
                let snippet = ScriptSnippet(code: code, field: prefix + "header", placement: .whole)
                if let reason = ScriptCheck.problem(in: [snippet]) {
                    problems.append(SourceProblem(field: prefix + "header", location: node.location, dialect: .javaScript,
                                                  reason: reason))
                } else {
                    headerScript = snippet
                }
            } else {
                do {
                    headers = try Self.headers(from: node)
                } catch {
                    problems.append(SourceProblem(field: prefix + "header", location: node.location,
                                                  dialect: error.dialect, reason: error.reason))
                }
            }
        }
        self.headers = headers
        self.headerScript = headerScript
        var jsLib = string("jsLib").flatMap { $0.trimmingASCIIWhitespace().isEmpty ? nil : $0 }
        if let code = jsLib {
            if code.hasPrefix("{") {
                // A JSON object of URLs to fetch and load: bookrule loads nothing from the network at load time.
                problems.append(SourceProblem(field: prefix + "jsLib", location: object["jsLib"]?.location, dialect: .javaScript,
                                              reason: "a jsLib of URLs to download is not supported; inline the scripts"))
                jsLib = nil
            } else if let reason = ScriptCheck.problem(in: [ScriptSnippet(code: code, field: prefix + "jsLib", placement: .whole)]) {
                problems.append(SourceProblem(field: prefix + "jsLib", location: object["jsLib"]?.location, dialect: .javaScript,
                                              reason: reason))
                jsLib = nil
            }
        }
        self.jsLib = jsLib

        var searchURL: URLTemplate?
        if let text = string("searchUrl"), !text.trimmingASCIIWhitespace().isEmpty {
            do throws(RuleError) {
                let template = try URLTemplate(text, field: prefix + "searchUrl")
                if let reason = ScriptCheck.problem(in: template.scripts) {
                    throw RuleError(field: prefix + "searchUrl", dialect: .javaScript, reason: reason, rule: text)
                }
                searchURL = template
            } catch {
                problems.append(SourceProblem(field: prefix + "searchUrl", location: object["searchUrl"]?.location,
                                              dialect: error.dialect, reason: error.reason))
            }
        }
        self.searchURL = searchURL

        var pattern: RegexPattern?
        if let text = string("bookUrlPattern"), !text.isEmpty {
            do {
                pattern = try RegexPattern(text)
            } catch {
                problems.append(SourceProblem(field: prefix + "bookUrlPattern", location: object["bookUrlPattern"]?.location,
                                              dialect: .regex, reason: "\(error)"))
            }
        }
        bookURLPattern = pattern

        let explore = Self.exploreURL(string("exploreUrl"), field: prefix + "exploreUrl",
                                      location: object["exploreUrl"]?.location)
        exploreURL = explore.text
        exploreScript = explore.script
        exploreCategories = explore.categories
        exploreNeedsScript = explore.needsScript
        problems += explore.problems
        login = LoginRules(object: object, prefix: prefix)
        problems += login.problems

        var sections: [RuleSectionName: RuleSection] = [:]
        for name in RuleSectionName.allCases {
            let (section, sectionProblems) = RuleSection.compile(name, node: object[name.rawValue], pathPrefix: prefix)
            sections[name] = section
            problems += sectionProblems
        }
        let empty = JSONObject(members: [])
        search = sections[.ruleSearch] ?? RuleSection(name: .ruleSearch, rules: [:], problems: [:], raw: empty)
        bookInfo = sections[.ruleBookInfo] ?? RuleSection(name: .ruleBookInfo, rules: [:], problems: [:], raw: empty)
        toc = sections[.ruleToc] ?? RuleSection(name: .ruleToc, rules: [:], problems: [:], raw: empty)
        content = sections[.ruleContent] ?? RuleSection(name: .ruleContent, rules: [:], problems: [:], raw: empty)
        self.explore = sections[.ruleExplore] ?? RuleSection(name: .ruleExplore, rules: [:], problems: [:], raw: empty)
        self.problems = problems
    }

    /// A placeholder for an array element that is not an object, so the other sources still load; its one
    /// problem says what was found instead.
    init(invalid node: JSONNode, origin: SourceOrigin) {
        self.init(object: JSONObject(members: []), location: node.location, origin: origin)
        problems = [SourceProblem(field: origin.index.map { "[\($0)]" } ?? "source", location: node.location,
                                  reason: "expected a book source object, found \(node.value.typeName)")]
    }

    /// The code of a field written wholly as JavaScript (`@js:code`, `<js>code</js>`), or nil.
    static func wholeScript(_ text: String) -> String? {
        let trimmed = text.trimmingASCIIWhitespace()
        let lower = trimmed.lowercased()
        if lower.hasPrefix("@js:") { return String(trimmed.dropFirst(4)) }
        if lower.hasPrefix("<js>"), lower.hasSuffix("</js>"), trimmed.count >= 9 {
            return String(trimmed.dropFirst(4).dropLast(5))
        }
        return nil
    }

    /// Whether anything in the source is JavaScript, so its engine needs a script runtime.
    public var hasScripts: Bool {
        if jsLib != nil || headerScript != nil || searchURL?.needsScript == true || exploreNeedsScript || login.needsScript { return true }
        return [search, bookInfo, toc, content, explore].contains { section in section.rules.values.contains { !$0.scripts.isEmpty } }
    }

    /// Rules that run but probably do not mean what was written, with the spelling that does (see
    /// `RuleMisreading`).
    public var warnings: [SourceProblem] {
        search.warnings + bookInfo.warnings + toc.warnings + content.warnings + explore.warnings + login.warnings
    }

    /// The section an explore page's books are read with: `ruleExplore` when it has a `bookList`, else
    /// `ruleSearch`, as Legado's BookList does.
    public var exploreListSection: RuleSection {
        explore[.bookList] != nil || explore.problems[.bookList] != nil ? explore : search
    }

    /// The section for `name`.
    public func section(_ name: RuleSectionName) -> RuleSection {
        switch name {
        case .ruleSearch: return search
        case .ruleBookInfo: return bookInfo
        case .ruleToc: return toc
        case .ruleContent: return content
        case .ruleExplore: return explore
        }
    }

    /// Headers from a `header` value: an object, or a string holding one (single quotes allowed).
    static func headers(from node: JSONNode) throws(RuleError) -> [HTTPHeader] {
        let object: JSONObject
        switch node.value {
        case .object(let value):
            object = value
        case .null:
            return []
        case .string(let text):
            let trimmed = text.trimmingASCIIWhitespace()
            if trimmed.isEmpty { return [] }
            // Legado runs a header as JavaScript only when it starts so (BookSource.getHeaderMap).
            if trimmed.lowercased().hasPrefix("@js:") || trimmed.contains("<js>") {
                throw RuleError(field: "header", dialect: .javaScript, reason: "JavaScript headers are run only in the source's own header field, not in a URL's options", rule: text)
            }
            do {
                guard case .object(let value) = try JSONParser.parse(trimmed, lenient: true).value else {
                    throw RuleError(field: "header", dialect: nil, reason: "expected a JSON object of header names and values", rule: text)
                }
                object = value
            } catch let error as RuleError {
                throw error
            } catch {
                throw RuleError(field: "header", dialect: nil, reason: "not a valid JSON object: \(error)", rule: text)
            }
        default:
            throw RuleError(field: "header", dialect: nil, reason: "expected an object, found \(node.value.typeName)", rule: "")
        }
        return object.members.compactMap { member in
            switch member.value.value {
            case .string(let value): return HTTPHeader(member.key, value)
            case .number(let literal): return HTTPHeader(member.key, literal)
            default: return nil
            }
        }
    }
}

/// Where a source was loaded from.
public struct SourceOrigin: Sendable, Equatable, CustomStringConvertible {
    /// The file path as given.
    public let path: String
    /// The source's index when the file holds an array.
    public let index: Int?

    /// Creates an origin.
    public init(path: String, index: Int?) {
        self.path = path
        self.index = index
    }

    /// `sources.json` or `sources.json[3]`.
    public var description: String {
        index.map { "\(path)[\($0)]" } ?? path
    }
}

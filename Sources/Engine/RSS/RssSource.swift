import BookRuleJSON
import BookRuleRules

/// One RSS source (Legado's 订阅源, `RssSource`): news, forums, blogs or comic updates read as article lists,
/// from a real RSS/Atom feed (no `ruleArticles`) or from any page through the book sources' rule language.
///
/// Every field of Legado's entity is read as Legado's Gson reads it, with its defaults (absent booleans as
/// Legado's: `enabled`, `enabledCookieJar`, `enableJs`, `loadWithBaseUrl` on; `singleUrl` off). The rules are
/// compiled when the source loads; a field that cannot be used is recorded in `problems` (named by its path,
/// `ruleArticles` or `[3].ruleArticles`) and the source still loads. What the rules fetch goes through
/// `engineSource`, the same engine book sources run on (header, cookies, login, `jsLib`, pacing).
public struct RssSource: Sendable {
    /// `sourceUrl`: the source's id, and the base of its relative URLs.
    public let url: String
    /// `sourceName`.
    public let name: String
    /// `sourceIcon`.
    public let icon: String
    /// `sourceGroup`.
    public let group: String?
    /// `sourceComment`.
    public let comment: String?
    /// `enabled` (default on).
    public let enabled: Bool
    /// `variableComment`: what the source's custom variable means.
    public let variableComment: String?
    /// `jsLib` as written.
    public let jsLib: String?
    /// `enabledCookieJar` (default on).
    public let enabledCookieJar: Bool
    /// `concurrentRate` as written.
    public let concurrentRate: String?
    /// `header` as written (a JSON object, or JavaScript giving one).
    public let header: String?
    /// `loginUrl` as written.
    public let loginURL: String?
    /// `loginUi` as written.
    public let loginUI: String?
    /// `loginCheckJs` as written.
    public let loginCheckJs: String?
    /// `coverDecodeJs`: JavaScript Legado runs on cover pictures (kept, not run).
    public let coverDecodeJs: String?
    /// `sortUrl` as written: `name::url` entries, JavaScript giving them, or empty (the source URL itself).
    public let sortURL: String?
    /// `singleUrl`: Legado opens the source's URL as one page instead of an article list.
    public let singleURL: Bool
    /// `articleStyle`: Legado's list layout (0, 1 or 2).
    public let articleStyle: Int
    /// `ruleArticles`, `ruleNextPage`, `ruleTitle`, … as written and compiled.
    public let rules: RssRules
    /// `contentWhitelist`: URL prefixes Legado's reader keeps inside the article view.
    public let contentWhitelist: String?
    /// `contentBlacklist`: URL prefixes Legado's reader refuses.
    public let contentBlacklist: String?
    /// `shouldOverrideUrlLoading`: JavaScript Legado's reader runs on links (kept, not run).
    public let shouldOverrideUrlLoading: String?
    /// `style`: CSS for Legado's article view.
    public let style: String?
    /// `enableJs` (default on): whether Legado's article view runs the page's scripts.
    public let enableJs: Bool
    /// `loadWithBaseUrl` (default on).
    public let loadWithBaseUrl: Bool
    /// `injectJs`: JavaScript Legado injects into the article view (kept, not run).
    public let injectJs: String?
    /// `lastUpdateTime` (milliseconds since 1970; Legado sorts by it).
    public let lastUpdateTime: Int64
    /// `customOrder`.
    public let customOrder: Int
    /// Every field that could not be used, in file order.
    public let problems: [SourceProblem]
    /// The whole source object as written, unknown keys included.
    public let json: JSONObject
    /// The file the source came from and its index when the file holds an array.
    public let origin: SourceOrigin
    /// The fetching half of the source as the book-source engine reads it: `sourceUrl`, `sourceName`,
    /// `header`, `jsLib`, `concurrentRate`, `enabledCookieJar` and the login fields under the names the engine
    /// knows, so every request goes through the same transport, cookies, login and scripts as a book source's.
    public let engineSource: BookSource

    /// Whether a JSON object is an RSS source rather than a book source: it has `sourceUrl` and `sourceName`
    /// (a book source's are `bookSourceUrl` and `bookSourceName`), as Legado's import tells them apart.
    public static func isRssSource(_ object: JSONObject) -> Bool {
        object["sourceUrl"] != nil && object["sourceName"] != nil && object["bookSourceUrl"] == nil
    }

    /// Reads every RSS source in a file (one object or an array); book sources in it are set aside.
    public static func load(contentsOf path: String) throws(SourceFileError) -> [RssSource] {
        let file = try SourceFile.load(contentsOf: path)
        guard !file.rssSources.isEmpty else { throw SourceFileError.noRssSources(path: path, bookSources: file.bookSources.count) }
        return file.rssSources
    }

    /// Reads one RSS source from its JSON object.
    public init(object: JSONObject, location: SourceLocation, origin: SourceOrigin) {
        let prefix = origin.index.map { "[\($0)]." } ?? ""
        var reader = GsonFields(object: object, prefix: prefix)
        json = object
        self.origin = origin
        url = (reader.string("sourceUrl") ?? "").trimmingASCIIWhitespace()
        name = reader.string("sourceName") ?? ""
        icon = reader.string("sourceIcon") ?? ""
        group = reader.string("sourceGroup")
        comment = reader.string("sourceComment")
        enabled = reader.bool("enabled") ?? true
        variableComment = reader.string("variableComment")
        jsLib = reader.string("jsLib")
        enabledCookieJar = reader.bool("enabledCookieJar") ?? true
        concurrentRate = reader.string("concurrentRate")
        header = reader.string("header")
        loginURL = reader.string("loginUrl")
        loginUI = reader.string("loginUi")
        loginCheckJs = reader.string("loginCheckJs")
        coverDecodeJs = reader.string("coverDecodeJs")
        sortURL = reader.string("sortUrl")
        singleURL = reader.bool("singleUrl") ?? false
        articleStyle = reader.int("articleStyle") ?? 0
        contentWhitelist = reader.string("contentWhitelist")
        contentBlacklist = reader.string("contentBlacklist")
        shouldOverrideUrlLoading = reader.string("shouldOverrideUrlLoading")
        style = reader.string("style")
        enableJs = reader.bool("enableJs") ?? true
        loadWithBaseUrl = reader.bool("loadWithBaseUrl") ?? true
        injectJs = reader.string("injectJs")
        lastUpdateTime = reader.int64("lastUpdateTime") ?? 0
        customOrder = reader.int("customOrder") ?? 0
        var problems = reader.problems
        let rules = RssRules(object: object, prefix: prefix)
        self.rules = rules

        engineSource = BookSource(object: Self.engineObject(object), location: location, origin: origin)
        problems += engineSource.problems.map { problem in
            var renamed = problem
            for (engineName, rssName) in Self.renamedFields where renamed.field == prefix + engineName {
                renamed.field = prefix + rssName
            }
            return renamed
        }
        problems += rules.problems
        if let text = sortURL, let code = RssSort.scriptCode(text) {
            let snippet = ScriptSnippet(code: code, field: prefix + "sortUrl", placement: .whole)
            if let reason = ScriptCheck.problem(in: [snippet]) {
                problems.append(SourceProblem(field: prefix + "sortUrl", location: object["sortUrl"]?.location,
                                              dialect: .javaScript, reason: reason))
            }
        }
        self.problems = problems
    }

    /// Whether anything the source runs is JavaScript (its rules, `sortUrl`, or what the engine's half has).
    public var hasScripts: Bool {
        engineSource.hasScripts || rules.hasScripts || sortURL.map { RssSort.scriptCode($0) != nil } == true
    }

    /// Engine field names and the RSS names they come from.
    static let renamedFields = [("bookSourceUrl", "sourceUrl"), ("bookSourceName", "sourceName"), ("bookSourceGroup", "sourceGroup")]

    /// The members the book-source engine reads, renamed where the two kinds differ; locations kept, so a
    /// problem points into the RSS source's file.
    private static func engineObject(_ object: JSONObject) -> JSONObject {
        let shared = ["header", "jsLib", "concurrentRate", "enabledCookieJar", "loginUrl", "loginUi", "loginCheckJs"]
        var members: [(key: String, value: JSONNode)] = []
        for (engineName, rssName) in renamedFields {
            if let node = object[rssName] { members.append((engineName, node)) }
        }
        for name in shared {
            if let node = object[name] { members.append((name, node)) }
        }
        return JSONObject(members: members)
    }
}

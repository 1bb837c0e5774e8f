import BookRule

/// The parsers of untrusted input that the libFuzzer targets under `Fuzz/` drive, one case per target, with the
/// function each target calls per generated input.
///
/// The same `run(_:)` is what `make test` replays the seed corpus and the minimized regression inputs through,
/// without libFuzzer (Tests/BookRuleFuzzTests), so a crash the fuzzer found stays found. It is public (the only
/// public surface this module has) because the fuzz package is a separate package and cannot see `package`
/// symbols; see docs/reliability.md.
public enum FuzzTarget: String, CaseIterable, Sendable {
    /// `JSONParser.parse`, strict and lenient, on the bytes.
    case json
    /// `BookSource.load(bytes:path:)`: a source file, its rules parsed and checked.
    case source
    /// `RuleParser.parse` on every dialect: byte 0 picks the rule kind and the context, the rest is the rule,
    /// evaluated on a small fixed page, element, JSON value or text.
    case rule
    /// The CSS and JSoup translators: byte 0 picks `@css:` selector / JSoup list rule / JSoup string rule;
    /// the XPath a translation gives must compile and evaluate.
    case css
    /// `JSONPath`: the first line is the path, the rest a JSON document (a fixed one when empty).
    case jsonpath
    /// `URLTemplate` (init and `request`) and `URLReference.resolve`: byte 0 picks which, the first line of the
    /// rest is the template or reference, the second the base URL.
    case url
    /// `HTMLDocument` with the charset decision and text formatting: byte 0 picks the charset option, byte 1
    /// the Content-Type, the rest is the page.
    case html
    /// `HARRecording.parse` and writing the recording back.
    case har
    /// Retry-After, Content-Range and Set-Cookie parsing: byte 0 picks which, the rest is the header value
    /// (Set-Cookie: one header per line).
    case headers
    /// JavaScript rule glue: `ScriptRuntime.checkSyntax` on the text, then the text run as a snippet (directly,
    /// or as `@js:` / `<js>` / `{{…}}` in a rule) through a `ScriptScope` with a tight time limit.
    case script
    /// The fixture loader (`SavedPageDirectory.load`, `HARRecording.load`) on a directory the input fills:
    /// NUL-separated `pages.json`, `site.har` and saved files, beside planted symlinks out and a FIFO.
    case fixture
    /// The studio: odd byte 0, a request (method, target, headers, a blank line, the body) through the gate and
    /// routes the server calls (`StudioApp.handle`), on a studio with a fixture of one saved page and no source
    /// file; even, a page written for the frame (`SanitizedPage`), whose output must be allow-listed markup only.
    case studio
    /// A web font (`FontOutlines`, what `java.queryTTF` reads, and every mapped glyph drawn with FreeType and
    /// turned into the recogniser's features).
    case font
    /// WebDAV with the Legado app: even byte 0, the rest is a backup zip (`LegadoBackup(zip:)`: libzip, the
    /// bounds, every JSON file); odd, the rest is a PROPFIND answer (`XMLTreeNode.parse`) and a progress file
    /// (`LegadoBookProgress(json:)`).
    case webdav
    /// An RSS or Atom feed (`RssFeedParser` over libxml2's XML parser, as `bookrule rss` reads a page without
    /// `ruleArticles`), and the bytes as a file of book and RSS sources (`SourceFile.load`).
    case rss

    /// Feeds `bytes` to the target's parsers. Errors the parsers throw are expected (bad input gets an error);
    /// what this reports is a broken invariant the harness checks beyond "no crash".
    /// - Returns: nil, or a description of the broken invariant (the fuzz target then aborts).
    public func run(_ bytes: [UInt8]) -> String? {
        switch self {
        case .json: return Self.json(bytes)
        case .source: return Self.source(bytes)
        case .rule: return Self.rule(bytes)
        case .css: return Self.css(bytes)
        case .jsonpath: return Self.jsonPath(bytes)
        case .url: return Self.url(bytes)
        case .html: return Self.html(bytes)
        case .har: return Self.har(bytes)
        case .headers: return Self.headers(bytes)
        case .script: return Self.script(bytes)
        case .fixture: return Self.fixture(bytes)
        case .studio: return Self.studio(bytes)
        case .font: return Self.font(bytes)
        case .webdav: return Self.webDAV(bytes)
        case .rss: return Self.rss(bytes)
        }
    }

    /// Builds what every input shares (the fixed contexts, the script runtime) and runs one input of each kind,
    /// before libFuzzer's first input. libFuzzer checks for leaks after any input that mallocs more than it
    /// frees; without this, the first input to touch a lazily built global would be reported, as LeakSanitizer
    /// cannot read the global's tagged enum pointers (docs/reliability.md).
    public func prepare() {
        for selector in UInt8(0)..<20 { _ = run([selector] + Array("result".utf8)) }
    }

    /// The input split into its first byte (a selector, 0 when empty) and the rest.
    static func selector(_ bytes: [UInt8]) -> (UInt8, [UInt8]) {
        guard let first = bytes.first else { return (0, []) }
        return (first, Array(bytes.dropFirst()))
    }

    /// The rest of the input as text (invalid UTF-8 repaired, as every reader of a file does).
    static func text(_ bytes: [UInt8]) -> String {
        String(decoding: bytes, as: UTF8.self)
    }

    /// `text` split at the first newline: the line and what follows (nil without a newline).
    static func firstLine(_ text: String) -> (String, String?) {
        guard let newline = text.firstIndex(of: "\n") else { return (text, nil) }
        return (String(text[..<newline]), String(text[text.index(after: newline)...]))
    }
}

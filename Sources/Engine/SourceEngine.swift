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
}

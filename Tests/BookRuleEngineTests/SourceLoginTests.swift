import BookRuleEngine
import BookRuleHTTP
import BookRuleLocking
import Testing
import TestSupport

/// A `LoginStore` in memory: the Engine's side of a login (what it reads, what it keeps, when) without the
/// Library's encrypted vault, which `LoginTests` (Library) covers.
private final class MemoryLoginStore: LoginStore {
    private let logins = Locked<[String: StoredLogin]>([:])
    private let unreadable: Bool
    /// Every save, in order, by source key.
    let saves = Locked<[String]>([])

    init(unreadable: Bool = false) {
        self.unreadable = unreadable
    }

    struct Damaged: Error, CustomStringConvertible {
        var description: String { "the store is damaged" }
    }

    func login(forSource sourceKey: String) throws -> StoredLogin? {
        if unreadable { throw Damaged() }
        return logins.withLock { $0[sourceKey] }
    }

    func save(_ login: StoredLogin?, forSource sourceKey: String) throws {
        saves.withLock { $0.append(sourceKey) }
        logins.withLock { $0[sourceKey] = login.flatMap { $0.isEmpty ? nil : $0 } }
    }

    /// What is kept for `sourceKey`, read past `unreadable`.
    func kept(_ sourceKey: String) -> StoredLogin? { logins.withLock { $0[sourceKey] } }
}

@Suite("A source's login in the engine: read from its store, kept in it, sent with the source's requests",
       .serialized, .timeLimit(.minutes(2 * TestTime.scale)))
struct SourceLoginTests {
    private static let credentials = [(name: "user", value: LoginSite.user), (name: "password", value: LoginSite.password)]

    /// A new run's engine for `login`'s source: its own cookie jar, the login read from `store`.
    private static func engine(_ site: LoginSite, _ login: LoginSite.Login, store: (any LoginStore)?) throws -> SourceEngine {
        let source = try #require(try BookSource.load(bytes: Array(site.sourceJSON(login).utf8), path: "locked.json").first)
        let fetcher = PoliteFetcher(transport: CurlTransport(), policy: PolitenessPolicy(delay: .zero, failureDelay: .zero,
                                                                                           jitter: false, maxAttempts: 1))
        return SourceEngine(source: source, connection: SourceTransport(for: source, over: fetcher, logins: store))
    }

    private static func chapter(_ site: LoginSite) -> Chapter {
        Chapter(index: 0, title: "第1章", url: site.baseURL + "/book/1/1.html")
    }

    @Test("a URL login keeps the fields and the session cookie under bookSourceUrl; a new run's engine sends the cookie")
    func urlLoginKept() async throws {
        let site = try LoginSite()
        let store = MemoryLoginStore()
        let first = try Self.engine(site, .url, store: store)
        _ = try await first.logIn(values: Self.credentials)
        let kept = try #require(store.kept(site.baseURL))
        #expect(kept.infoFields.map(\.value) == [LoginSite.user, LoginSite.password])
        #expect(kept.cookies.values.contains { $0.contains("session=") }, "\(kept.cookies)")
        #expect(store.saves.withLock { $0 }.allSatisfy { $0 == site.baseURL })
        let later = try Self.engine(site, .url, store: store)
        #expect(try await later.content(of: Self.chapter(site)).text == LoginSite.text(1))
        #expect(site.logins == 1)
    }

    @Test("a login() script's putLoginHeader is kept at once and goes with every request of the next run")
    func scriptHeaderKept() async throws {
        let site = try LoginSite()
        let store = MemoryLoginStore()
        _ = try await Self.engine(site, .script, store: store).logIn(values: Self.credentials)
        #expect(store.kept(site.baseURL)?.headerFields.map(\.name) == ["X-Token"])
        let later = try Self.engine(site, .script, store: store)
        #expect(try await later.content(of: Self.chapter(site)).text == LoginSite.text(1))
        let page = site.server.records.last { $0.path == "/book/1/1.html" }
        #expect(page?.request.header("X-Token") == LoginSite.token)
    }

    @Test("without a store a login is refused before anything is sent; a store that cannot be read is a warning, and the source runs without it")
    func noStoreAndUnreadableStore() async throws {
        let site = try LoginSite()
        let bare = try Self.engine(site, .url, store: nil)
        await #expect(throws: LoginError.self) { try await bare.logIn(values: Self.credentials) }
        #expect(site.server.records.isEmpty)
        let source = try #require(try BookSource.load(bytes: Array(site.sourceJSON(.url).utf8), path: "locked.json").first)
        let connection = SourceTransport(for: source, over: CurlTransport(), pacing: nil, logins: MemoryLoginStore(unreadable: true))
        #expect(connection.warnings.contains { $0.contains("the stored login cannot be used") && $0.contains("damaged") },
                "\(connection.warnings)")
        let engine = SourceEngine(source: source, connection: connection)
        #expect((try? await engine.content(of: Self.chapter(site)))?.text != LoginSite.text(1))
    }

    @Test("logging in again with no fields removes the kept fields, and the store is told at once")
    func emptyLoginRemovesFields() async throws {
        let site = try LoginSite()
        let store = MemoryLoginStore()
        let engine = try Self.engine(site, .url, store: store)
        _ = try await engine.logIn(values: Self.credentials)
        #expect(store.kept(site.baseURL)?.info != nil)
        _ = try? await engine.logIn(values: [])
        #expect(store.kept(site.baseURL)?.info == nil)
    }
}

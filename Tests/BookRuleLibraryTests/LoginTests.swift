import BookRuleEngine
import BookRuleHTTP
import BookRuleLibrary
import BookRuleScript
import Foundation
import Testing
import TestSupport

@Suite("logging in to a source: stored login on every request, loginCheckJs, the encrypted vault", .serialized,
       .timeLimit(.minutes(2 * TestTime.scale)))
struct LoginTests {
    /// An engine for `login`'s source over a live stack with the vault in `folder`.
    private static func engine(_ site: LoginSite, _ login: LoginSite.Login, vault: LoginVault,
                               recording: Bool = false) throws -> (SourceEngine, TransportStack) {
        let source = try #require(try BookSource.load(bytes: Array(site.sourceJSON(login).utf8), path: "locked.json").first)
        #expect(source.problems.isEmpty, "\(source.problems)")
        var policy = PolitenessPolicy.default
        policy.delay = .zero
        policy.failureDelay = .zero
        policy.maxAttempts = 1
        var stack = TransportStack.live(policy: policy, hostStatePath: nil).withLogins(vault)
        if recording { stack = stack.recording() }
        return (SourceEngine(source: source, connection: stack.transport(for: source)), stack)
    }

    private static func chapter(_ site: LoginSite) -> Chapter {
        Chapter(index: 0, title: "第1章", url: site.baseURL + "/book/1/1.html")
    }

    private static let credentials = [(name: "user", value: LoginSite.user), (name: "password", value: LoginSite.password)]

    @Test("a URL login posts the loginUi fields; its cookie, kept in the vault, opens the chapter in a later run")
    func urlLoginKeepsTheCookie() async throws {
        let site = try LoginSite()
        let folder = try ScratchDirectory("login")
        let vault = LoginVault(directory: folder.path + "/config")
        let (before, _) = try Self.engine(site, .url, vault: vault)
        #expect((try? await before.content(of: Self.chapter(site)))?.text != LoginSite.text(1))
        _ = try await before.logIn(values: Self.credentials)
        #expect(site.logins == 1)
        // A new run: a new engine, a new cookie jar, the login read back from the vault.
        let (after, _) = try Self.engine(site, .url, vault: LoginVault(directory: folder.path + "/config"))
        #expect(try await after.content(of: Self.chapter(site)).text == LoginSite.text(1))
        let posted = site.server.records.first { $0.method == "POST" }
        #expect(posted.map { String(decoding: $0.body, as: UTF8.self) } == "user=alice&password=\(LoginSite.password)")
    }

    @Test("a JavaScript login() keeps a header with putLoginHeader, and the header reaches the site on every request")
    func scriptLoginHeaderReachesTheSite() async throws {
        let site = try LoginSite()
        let folder = try ScratchDirectory("login")
        let vault = LoginVault(directory: folder.path + "/config")
        let (engine, _) = try Self.engine(site, .script, vault: vault)
        _ = try await engine.logIn(values: Self.credentials)
        let (later, _) = try Self.engine(site, .script, vault: LoginVault(directory: folder.path + "/config"))
        let toc = try await later.toc(url: site.baseURL + "/book/1/")
        #expect(toc.chapters.count == 2)
        #expect(try await later.content(of: toc.chapters[1]).text == LoginSite.text(2))
        let pages = site.server.records.filter { $0.path.hasPrefix("/book/") }
        #expect(pages.count == 2 && pages.allSatisfy { $0.request.header("X-Token") == LoginSite.token })
        #expect(try vault.login(forSource: site.baseURL)?.header == "{\"X-Token\":\"\(LoginSite.token)\"}")
    }

    @Test("the login's headers go to the source's own site (its subdomains too), never to another site a page loads")
    func loginHeadersStayOnTheSourcesSite() async throws {
        let folder = try ScratchDirectory("login-sites")
        let vault = LoginVault(directory: folder.path + "/config")
        try vault.save(StoredLogin(header: #"{"Authorization":"Bearer t0k3n"}"#), forSource: "https://www.novel.test")
        let site = TestSite(html: ["https://api.novel.test/a": "a", "https://cdn.tracker.test/t.js": "t", "http://127.0.0.1:9/x": "x"])
        let transport = try SourceLoginTransport(upstream: site, sourceKey: "https://www.novel.test", store: vault, jar: nil)
        for url in ["https://api.novel.test/a", "https://cdn.tracker.test/t.js", "http://127.0.0.1:9/x"] {
            _ = try await transport.send(HTTPRequest(url: url))
        }
        let sent = Dictionary(site.requests.map { ($0.url, $0.headers.value(for: "Authorization")) }, uniquingKeysWith: { first, _ in first })
        #expect(sent["https://api.novel.test/a"] == "Bearer t0k3n")
        #expect(sent["https://cdn.tracker.test/t.js"] == .some(nil))
        #expect(sent["http://127.0.0.1:9/x"] == .some(nil))
    }

    @Test("a login() that turns java.post's cookies into a Cookie header, as community sources write it, opens the chapter")
    func cookieMapShapes() async throws {
        let site = try LoginSite()
        let folder = try ScratchDirectory("login")
        let (engine, _) = try Self.engine(site, .scriptCookieHeader, vault: LoginVault(directory: folder.path + "/config"))
        _ = try await engine.logIn(values: Self.credentials)
        let (later, _) = try Self.engine(site, .scriptCookieHeader, vault: LoginVault(directory: folder.path + "/config"))
        #expect(try await later.content(of: Self.chapter(site)).text == LoginSite.text(1))
        #expect(site.server.records.last?.request.header("Cookie")?.contains("session=sess-1") == true)
    }

    @Test("loginCheckJs logs in again when the site answers \"please log in\", and the refetched page is read")
    func loginCheckLogsInAgain() async throws {
        let site = try LoginSite()
        let folder = try ScratchDirectory("login")
        let (engine, _) = try Self.engine(site, .urlWithCheck, vault: LoginVault(directory: folder.path + "/config"))
        _ = try await engine.logIn(values: Self.credentials)
        #expect(try await engine.content(of: Self.chapter(site)).text == LoginSite.text(1))
        site.expireSessions()
        #expect(try await engine.content(of: Self.chapter(site)).text == LoginSite.text(1))
        #expect(site.logins == 2)
        // The check ran on the page, logged in (POST /login) and fetched the chapter again.
        #expect(site.server.records.suffix(3).map(\.path) == ["/book/1/1.html", "/login", "/book/1/1.html"])
    }

    @Test("a loginCheckJs that throws fails the page naming the field loginCheckJs")
    func loginCheckErrorNamesTheField() async throws {
        let site = try LoginSite()
        let folder = try ScratchDirectory("login")
        let json = site.sourceJSON(.url).replacingOccurrences(of: "\"loginUrl\"", with: "\"loginCheckJs\": \"throw new Error('boom')\", \"loginUrl\"")
        let source = try #require(try BookSource.load(bytes: Array(json.utf8), path: "locked.json").first)
        let stack = TransportStack.live(hostStatePath: nil).withLogins(LoginVault(directory: folder.path + "/config"))
        let engine = SourceEngine(source: source, connection: stack.transport(for: source))
        await #expect {
            _ = try await engine.content(of: Self.chapter(site))
        } throws: { error in
            "\(error)".contains("loginCheckJs") && "\(error)".contains("boom")
        }
    }

    @Test("a loginCheckJs that never ends is stopped by the script time limit and fails the page naming loginCheckJs", .tags(.realTime))
    func loginCheckHasATimeLimit() async throws {
        let site = try LoginSite()
        let folder = try ScratchDirectory("login")
        let json = site.sourceJSON(.url).replacingOccurrences(of: "\"loginUrl\"", with: "\"loginCheckJs\": \"while (true) {}\", \"loginUrl\"")
        let source = try #require(try BookSource.load(bytes: Array(json.utf8), path: "locked.json").first)
        let stack = TransportStack.live(hostStatePath: nil).withLogins(LoginVault(directory: folder.path + "/config"))
        let options = EngineOptions(scriptLimits: ScriptLimits(timeLimit: .milliseconds(200)))
        let engine = SourceEngine(source: source, connection: stack.transport(for: source), options: options)
        let started = ContinuousClock.now
        await #expect {
            _ = try await engine.content(of: Self.chapter(site))
        } throws: { error in
            "\(error)".contains("loginCheckJs") && "\(error)".contains("time")
        }
        #expect(ContinuousClock.now - started < .seconds(10 * TestTime.scale))
    }

    @Test("no credential is in clear on disk: the vault's files hold neither the password nor the header, the key is 0600")
    func nothingInClear() async throws {
        let site = try LoginSite()
        let folder = try ScratchDirectory("login")
        let vault = LoginVault(directory: folder.path + "/config")
        let (engine, stack) = try Self.engine(site, .script, vault: vault, recording: true)
        _ = try await engine.logIn(values: Self.credentials)
        _ = try await engine.content(of: Self.chapter(site))
        let har = folder.path + "/run.har"
        try #require(stack.recorder).recording.write(to: har)
        let files = try FileManager.default.contentsOfDirectory(atPath: folder.path + "/config").map { folder.path + "/config/" + $0 } + [har]
        for file in files {
            let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
            for secret in [LoginSite.password, LoginSite.token] {
                #expect(bytes.range(of: Data(secret.utf8)) == nil, "\(secret) in clear in \(file)")
            }
        }
        #expect(try String(contentsOfFile: har, encoding: .utf8).contains("REDACTED"))
        let attributes = try FileManager.default.attributesOfItem(atPath: vault.keyPath)
        #expect((attributes[.posixPermissions] as? Int) == 0o600)
        #expect((try FileManager.default.attributesOfItem(atPath: vault.storePath)[.posixPermissions] as? Int) == 0o600)
        #expect(try vault.login(forSource: site.baseURL)?.infoFields.map(\.value) == [LoginSite.user, LoginSite.password])
    }

    @Test("a damaged store is an error naming the file, not a crash, and the source still runs without its login")
    func damagedStoreIsAClearError() async throws {
        let folder = try ScratchDirectory("login")
        let vault = LoginVault(directory: folder.path + "/config")
        try vault.save(StoredLogin(info: "{\"user\":\"alice\"}"), forSource: "http://127.0.0.1:1")
        var bytes = try Array(Data(contentsOf: URL(fileURLWithPath: vault.storePath)))
        bytes[bytes.count / 2] ^= 0x5A
        try Data(bytes).write(to: URL(fileURLWithPath: vault.storePath))
        #expect {
            _ = try LoginVault(directory: folder.path + "/config").login(forSource: "http://127.0.0.1:1")
        } throws: { error in
            guard let error = error as? LoginVaultError, case .damaged(let path, _) = error else { return false }
            return path == vault.storePath && error.description.contains("logout --all")
        }
        let site = try LoginSite()
        let source = try #require(try BookSource.load(bytes: Array(site.sourceJSON(.url).utf8), path: "locked.json").first)
        let transport = TransportStack.live(hostStatePath: nil).withLogins(LoginVault(directory: folder.path + "/config")).transport(for: source)
        #expect(transport.warnings.contains { $0.contains("stored login cannot be used") })
        try LoginVault(directory: folder.path + "/config").removeAll()
        #expect(try LoginVault(directory: folder.path + "/config").login(forSource: "http://127.0.0.1:1") == nil)
    }

    @Test("logging out removes the login: its fields, headers and cookies")
    func logoutRemovesIt() throws {
        let folder = try ScratchDirectory("login")
        let vault = LoginVault(directory: folder.path + "/config")
        try vault.save(StoredLogin(info: "{}", header: "{\"X-Token\":\"t\"}", cookies: ["http://a:80/": "s=1"]), forSource: "http://a")
        try vault.save(StoredLogin(info: "{}"), forSource: "http://b")
        try vault.save(nil, forSource: "http://a")
        let reread = LoginVault(directory: folder.path + "/config")
        #expect(try reread.login(forSource: "http://a") == nil)
        #expect(try reread.sources() == ["http://b"])
    }
}

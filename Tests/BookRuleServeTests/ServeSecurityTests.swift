import BookRuleHTTP
import BookRuleHTTPServer
import BookRuleJSON
import BookRuleLibrary
@testable import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("bookrule serve: Host, Origin and token checks, bounded bodies, files confined", .timeLimit(.minutes(2 * TestTime.scale)))
struct ServeSecurityTests {
    static let token = String(repeating: "7e", count: 16)

    @Test("The transport sources fetch through cannot reach the server's own ports (a script's java.ajax to the API fails)")
    func ownPortsOutOfSourcesReach() async throws {
        let workspace = try await ServeWorkspace()
        let port = workspace.server.port
        #expect(workspace.server.api.library.transport.reservedPorts?.reserved == [port, port + 1])
        for url in ["http://127.0.0.1:\(port)/getBookshelf", "http://localhost:\(port)/deleteBookSources"] {
            do {
                let answer = try await workspace.server.api.library.transport.transport.send(HTTPRequest(url: url))
                Issue.record("\(url) was answered \(answer.status)")
            } catch {
                // Refused at once, not retried as a connection failure would be.
                #expect("\(error)".contains("the port of this process's own server"), "\(error)")
                #expect(!"\(error)".contains("attempts"), "\(error)")
            }
        }
        // Its site is still reached through the same transport.
        let page = try await workspace.server.api.library.transport.transport.send(HTTPRequest(url: workspace.site.bookURL))
        #expect(page.status == 200)
    }

    @Test("When sites are reached through a proxy (which could carry a script's request back here), a token is needed on loopback too")
    func proxyMeansToken() throws {
        let directory = try ScratchDirectory("serve-proxy")
        let policy = PolitenessPolicy(delay: .zero, failureDelay: .zero, jitter: false)
        let proxied = TransportStack.live(policy: policy, curl: .init(proxy: "http://127.0.0.1:9"), hostStatePath: nil)
        #expect(proxied.mayUseProxy)
        let server = try ReadingServer(configuration: ServeConfiguration(
            libraryPath: directory.path + "/library.sqlite", sourcePaths: [], port: 0, transport: proxied, prefetchChapters: 0))
        defer { server.stop(waitingUpTo: 5) }
        #expect(server.token != nil)
        #expect(server.url.contains("?token="))
        let direct = TransportStack.live(policy: policy, curl: .init(proxy: ""), hostStatePath: nil)
        #expect(!direct.mayUseProxy)
        #expect(CurlTransport.Configuration().mayUseProxy(environment: ["HTTPS_PROXY": "http://proxy.test:3128"]))
        #expect(!CurlTransport.Configuration(useEnvironmentProxy: false).mayUseProxy(environment: ["all_proxy": "socks5h://p:1"]))
    }

    @Test("A foreign Host is refused (DNS rebinding), as are two Host headers")
    func foreignHost() async throws {
        let workspace = try await ServeWorkspace()
        let rebound = try await workspace.client.send("GET", "/getBookshelf", host: "attacker.test:\(workspace.server.port)")
        #expect(rebound.status == 403)
        #expect(try ServeWorkspace.object(rebound)["isSuccess"]?.value == .bool(false))
        let otherPort = try await workspace.client.send("GET", "/getBookshelf", host: "127.0.0.1:1")
        #expect(otherPort.status == 403)
        let twice = try await workspace.client.send("GET", "/getBookshelf", headers: [("Host", "127.0.0.1:\(workspace.server.port)")])
        #expect(twice.status == 400)
        #expect(try await workspace.client.send("GET", "/getBookshelf", host: "localhost:\(workspace.server.port)").status == 200)
    }

    @Test("A state-changing request from another origin is refused and changes nothing; CORS answers only the server's own origin")
    func foreignOrigin() async throws {
        let workspace = try await ServeWorkspace()
        let progress = #"{"name":"\#(MirrorSite.bookName)","author":"\#(MirrorSite.author)","durChapterIndex":5}"#
        let refused = try await workspace.client.send("POST", "/saveBookProgress", headers: [("Origin", "http://attacker.test")],
                                                      body: progress)
        #expect(refused.status == 403)
        #expect(try workspace.store.readingProgress().isEmpty)
        let own = "http://\(workspace.host)"
        let preflight = try await workspace.client.send("OPTIONS", "/saveBook", headers: [("Origin", own)])
        #expect(preflight.status == 200)
        #expect(preflight.header("Access-Control-Allow-Origin") == own)
        #expect(preflight.header("Access-Control-Allow-Methods") == "POST")
        #expect(preflight.header("Access-Control-Allow-Headers") == "content-type")
        let foreignPreflight = try await workspace.client.send("OPTIONS", "/saveBook", headers: [("Origin", "http://attacker.test")])
        #expect(foreignPreflight.header("Access-Control-Allow-Origin") == nil)
        let read = try await workspace.client.send("GET", "/getBookshelf", headers: [("Origin", own)])
        #expect(read.header("Access-Control-Allow-Origin") == own)
        #expect(read.header("Access-Control-Allow-Methods") == "GET, POST")
    }

    @Test("With a token every request needs it: ?token= once sets an HttpOnly SameSite=Strict cookie later requests carry")
    func tokenAndCookie() async throws {
        let workspace = try await ServeWorkspace(token: Self.token)
        #expect(workspace.server.url.hasSuffix("?token=\(Self.token)"))
        #expect(try await workspace.client.send("GET", "/getBookshelf").status == 403)
        #expect(try await workspace.client.send("GET", "/getBookshelf?token=wrong").status == 403)
        let first = try await workspace.client.send("GET", "/getBookshelf?token=\(Self.token)")
        #expect(first.status == 200)
        let cookie = try #require(first.header("Set-Cookie"))
        #expect(cookie.contains("bookrule_serve=\(Self.token)") && cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        let later = try await workspace.client.send("GET", "/getBookshelf", headers: [("Cookie", "bookrule_serve=\(Self.token)")])
        #expect(later.status == 200)
        // The WebSocket server beside it asks the same gate, with its own port in the Host.
        let gate = workspace.server.gate
        let webSocketHost = "127.0.0.1:\(workspace.server.port + 1)"
        #expect(gate.allows(host: webSocketHost, origin: "http://\(workspace.host)", cookie: "a=b; bookrule_serve=\(Self.token)"))
        #expect(!gate.allows(host: webSocketHost, origin: "http://\(workspace.host)", cookie: nil))
        #expect(!gate.allows(host: webSocketHost, origin: "http://attacker.test", cookie: "bookrule_serve=\(Self.token)"))
        #expect(!gate.allows(host: "attacker.test:\(workspace.server.port + 1)", origin: nil, cookie: "bookrule_serve=\(Self.token)"))
        #expect(gate.allows(path: "/searchBook", headers: [("host", webSocketHost), ("Cookie", "bookrule_serve=\(Self.token)")]))
        #expect(gate.allows(path: "/searchBook?token=\(Self.token)", headers: [("Host", webSocketHost)]))
        #expect(!gate.allows(path: "/searchBook?token=wrong", headers: [("Host", webSocketHost)]))
        #expect(!gate.allows(path: "/searchBook?token=\(Self.token)", headers: [("Host", webSocketHost), ("Host", "attacker.test")]))
    }

    @Test("Another site's page cannot drive the server with plain GETs (Sec-Fetch-Site), nor a GET with a foreign Origin")
    func crossSiteGetsRefused() async throws {
        let workspace = try await ServeWorkspace()
        for site in ["cross-site", "same-site"] {
            let answer = try await workspace.client.send("GET", "/reader3/getBookshelf", headers: [("Sec-Fetch-Site", site)])
            #expect(answer.status == 403, "\(site)")
        }
        let foreign = try await workspace.client.send("GET", "/getBookshelf", headers: [("Origin", "http://attacker.test")])
        #expect(foreign.status == 403)
        for site in ["same-origin", "none"] {
            let answer = try await workspace.client.send("GET", "/getBookshelf", headers: [("Sec-Fetch-Site", site)])
            #expect(answer.status == 200, "\(site)")
        }
    }

    @Test("A progress time no Int64 holds (1e20, 1e400) is taken as now, not a trap")
    func unrepresentableProgressTime() async throws {
        let workspace = try await ServeWorkspace()
        let own = [("Origin", "http://\(workspace.host)")]
        for time in ["1e20", "1e400", "-1e300"] {
            let progress = #"{"name":"\#(MirrorSite.bookName)","author":"\#(MirrorSite.author)","durChapterIndex":2,"durChapterTime":\#(time)}"#
            let answer = try await workspace.client.send("POST", "/saveBookProgress", headers: own, body: progress)
            #expect(answer.status == 200, "\(time)")
        }
        #expect(try workspace.store.readingProgress().count == 1)
    }

    @Test("A --host name makes the server reachable by others: a token is made, as off loopback")
    func hostNameNeedsToken() throws {
        let directory = try ScratchDirectory("serve-host")
        let configuration = ServeConfiguration(libraryPath: directory.path + "/library.sqlite", port: 0, listenAddress: "127.0.0.1",
                                               hostNames: ["books.example.org"], transport: .live(hostStatePath: nil))
        let server = try ReadingServer(configuration: configuration)
        defer { server.stop() }
        #expect(server.token != nil)
    }

    @Test("Off loopback a token is required: every address but 127.x and ::1 gets one, and --listen must be an IP address")
    func tokenOffLoopback() async throws {
        #expect(RequestGate.isLoopback("127.0.0.1") && RequestGate.isLoopback("::1"))
        #expect(!RequestGate.isLoopback("0.0.0.0") && !RequestGate.isLoopback("::") && !RequestGate.isLoopback("192.168.1.5"))
        let directory = try ScratchDirectory("serve-listen")
        let configuration = ServeConfiguration(libraryPath: directory.path + "/library.sqlite", port: 0, listenAddress: "example.com",
                                               transport: .live(hostStatePath: nil))
        #expect(throws: ServeError.badListenAddress("example.com")) { try ReadingServer(configuration: configuration) }
    }

    @Test("The server listens on ::1 when asked, and answers a request for [::1]:PORT")
    func listensOnIPv6() async throws {
        let workspace = try await ServeWorkspace(listen: "::1")
        #expect(workspace.server.url.hasPrefix("http://[::1]:\(workspace.server.port)/"))
        let answer = try await CurlTransport().send(HTTPRequest(url: "http://[::1]:\(workspace.server.port)/getBookshelf"))
        #expect(answer.status == 200)
        #expect(String(decoding: answer.body, as: UTF8.self).contains(MirrorSite.bookName))
    }

    @Test("A body over the limit is refused with 413 and nothing is saved")
    func boundedBody() async throws {
        let workspace = try await ServeWorkspace()
        let huge = "[" + String(repeating: " ", count: ServeDefaults.bodyLimit) + "]"
        let answer = try await workspace.client.send("POST", "/saveBookSources", headers: [("Origin", "http://\(workspace.host)")], body: huge)
        #expect(answer.status == 413)
        #expect(try workspace.store.storedSources().count == 1)
    }

    @Test("--web serves the client's files with their content types, and nothing outside DIR (.., encoded .., symlinks)")
    func webConfined() async throws {
        let web = try ScratchDirectory("serve-web")
        try "<html>client</html>".write(toFile: web.path + "/index.html", atomically: true, encoding: .utf8)
        try FileManager.default.createDirectory(atPath: web.path + "/assets", withIntermediateDirectories: true)
        try "console.log(1)".write(toFile: web.path + "/assets/app.js", atomically: true, encoding: .utf8)
        try "secret".write(toFile: web.path + "/../serve-secret-\(UUID().uuidString)", atomically: true, encoding: .utf8)
        try FileManager.default.createSymbolicLink(atPath: web.path + "/escape", withDestinationPath: "/etc")
        let workspace = try await ServeWorkspace(web: web.path)
        let client = workspace.client
        let index = try await client.send("GET", "/vue/index.html")
        #expect(index.status == 200 && index.text == "<html>client</html>")
        #expect(index.header("Content-Type") == "text/html; charset=utf-8")
        #expect(try await client.send("GET", "/vue/assets/app.js").header("Content-Type") == "text/javascript; charset=utf-8")
        #expect(try await client.send("GET", "/").header("Location") == "/vue/index.html")
        for target in ["/vue/../../../../etc/passwd", "/vue/%2e%2e/%2e%2e/%2e%2e/etc/passwd", "/vue/escape/passwd", "/vue/assets"] {
            let answer = try await client.send("GET", target)
            #expect(answer.status == 404, "\(target)")
            #expect(!answer.text.contains("root:"), "\(target)")
        }
    }
}

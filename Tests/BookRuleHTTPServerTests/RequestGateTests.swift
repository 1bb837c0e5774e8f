import BookRuleHTTPServer
import Testing

/// `RequestGate` on its own, without a server: which `Host` and `Origin` values name the server, where a token
/// may come from (query, header, cookie), and the WebSocket handshake's checks. The studio's and serve's suites
/// test the gate through their servers; these pin each rule where it is made.
@Suite("RequestGate: Host, Origin, token and cookie checks")
struct RequestGateTests {
    /// A gate on `address` listening on port 8080 (and 8081 for the WebSocket beside it).
    static func gate(address: String = "127.0.0.1", token: String? = nil, headerName: String? = nil,
                     extraNames: [String] = []) -> RequestGate {
        let gate = RequestGate(address: address, token: token, cookieName: "br_token", headerName: headerName,
                               extraNames: extraNames, tokenHint: "open the address the server printed")
        gate.listening(on: [8080, 8081])
        return gate
    }

    /// A GET of `/` with these headers, query arguments and cookies.
    static func request(headers: [(name: String, value: String)], query: [(name: String, value: String)] = [],
                        cookies: [(name: String, value: String)] = []) -> HTTPServerRequest {
        HTTPServerRequest(method: "GET", path: "/", query: query, headers: headers, cookies: cookies)
    }

    /// Why `gate` refuses `request`, or nil when it lets it through.
    static func refusal(_ gate: RequestGate, _ request: HTTPServerRequest) -> RequestGate.Refusal? {
        do throws(RequestGate.Refusal) {
            try gate.check(request)
            return nil
        } catch {
            return error
        }
    }

    /// Whether `refusal` is a 403 whose message contains `text`.
    static func isForbidden(_ refusal: RequestGate.Refusal?, saying text: String = "") -> Bool {
        guard case .forbidden(let message) = refusal else { return false }
        return text.isEmpty || message.contains(text)
    }

    // MARK: Host

    @Test("before the ports are known, every Host is refused")
    func refusesEveryHostBeforeListening() {
        let gate = RequestGate(token: nil, cookieName: "br_token", tokenHint: "hint")
        #expect(!gate.allowsHost("127.0.0.1:8080"))
        #expect(gate.origins.isEmpty)
        #expect(Self.isForbidden(Self.refusal(gate, Self.request(headers: [("Host", "127.0.0.1:8080")])),
                                 saying: "answers only requests for 127.0.0.1"))
        gate.listening(on: [8080])
        #expect(gate.allowsHost("127.0.0.1:8080"))
    }

    @Test("a loopback address answers to itself and to localhost, on its own ports, without case")
    func loopbackHosts() {
        let gate = Self.gate()
        #expect(gate.allowsHost("127.0.0.1:8080"))
        #expect(gate.allowsHost("127.0.0.1:8081"))
        #expect(gate.allowsHost("localhost:8080"))
        #expect(gate.allowsHost("LocalHost:8080"))
        #expect(!gate.allowsHost("127.0.0.1:9090"))
        #expect(!gate.allowsHost("127.0.0.1"))
        #expect(!gate.allowsHost("127.0.0.1:"))
        #expect(!gate.allowsHost("127.0.0.1:99999"))
        #expect(!gate.allowsHost("127.0.0.2:8080"))
        #expect(!gate.allowsHost("evil.example:8080"))
        #expect(!gate.allowsHost("localhost.evil.example:8080"))
        #expect(!gate.allowsHost(""))
        #expect(gate.origins == ["http://127.0.0.1:8080", "http://127.0.0.1:8081", "http://localhost:8080",
                                 "http://localhost:8081"])
    }

    @Test("an IPv6 loopback address is written in brackets and answers to localhost")
    func ipv6LoopbackHosts() {
        let gate = Self.gate(address: "::1")
        #expect(gate.allowsHost("[::1]:8080"))
        #expect(gate.allowsHost("localhost:8080"))
        #expect(!gate.allowsHost("::1:8080"))
        #expect(!gate.allowsHost("127.0.0.1:8080"))
        #expect(gate.origins.first == "http://[::1]:8080")
    }

    @Test("a LAN address answers to itself only, not to localhost (a rebinding page's name)")
    func lanAddressHosts() {
        let gate = Self.gate(address: "192.168.1.20")
        #expect(gate.allowsHost("192.168.1.20:8080"))
        #expect(!gate.allowsHost("localhost:8080"))
        #expect(!gate.allowsHost("192.168.1.21:8080"))
        #expect(!gate.allowsHost("rebound.evil.example:8080"))
    }

    @Test("every address: any IP literal and localhost with a port of the server, but no other host name")
    func wildcardHosts() {
        for address in ["0.0.0.0", "::"] {
            let gate = Self.gate(address: address)
            #expect(gate.allowsHost("localhost:8080") && gate.allowsHost("LocalHost:8081"))
            #expect(!gate.allowsHost("localhost:9090"))
            #expect(gate.allowsHost("192.168.1.20:8080"))
            #expect(gate.allowsHost("10.0.0.1:8081"))
            #expect(gate.allowsHost("[fe80::1]:8080"))
            #expect(!gate.allowsHost("192.168.1.20:9090"))
            #expect(!gate.allowsHost("evil.example:8080"))
            #expect(!gate.allowsHost("999.1.1.1:8080"))
        }
    }

    @Test("extra names (a reverse proxy's) are allowed without case, with a port of the server")
    func extraNameHosts() {
        let gate = Self.gate(address: "0.0.0.0", extraNames: ["Books.Example.org"])
        #expect(gate.extraNames == ["books.example.org"])
        #expect(gate.allowsHost("books.example.org:8080"))
        #expect(gate.allowsHost("BOOKS.example.ORG:8081"))
        #expect(!gate.allowsHost("books.example.org:443"))
        #expect(!gate.allowsHost("other.example.org:8080"))
    }

    // MARK: Origin

    @Test("an Origin is allowed only as http://NAME:PORT of the server, or https://EXTRA-NAME behind a proxy")
    func origins() {
        let gate = Self.gate(extraNames: ["books.example.org"])
        #expect(gate.allowsOrigin("http://127.0.0.1:8080"))
        #expect(gate.allowsOrigin("HTTP://LOCALHOST:8081"))
        #expect(gate.allowsOrigin("https://books.example.org"))
        #expect(gate.allowsOrigin("https://books.example.org:8080"))
        #expect(!gate.allowsOrigin("https://127.0.0.1"))
        #expect(!gate.allowsOrigin("http://books.example.org"))
        #expect(!gate.allowsOrigin("http://127.0.0.1:9090"))
        #expect(!gate.allowsOrigin("http://evil.example:8080"))
        #expect(!gate.allowsOrigin("null"))
        #expect(!gate.allowsOrigin("file://"))
        #expect(!gate.allowsOrigin("ws://127.0.0.1:8080"))
        #expect(!gate.allowsOrigin(""))
    }

    // MARK: Token

    @Test("without a token every request passes the token check; with one, only the exact token does")
    func tokens() {
        #expect(Self.gate().allowsToken(nil))
        #expect(Self.gate().allowsToken("anything"))
        let gate = Self.gate(token: "0123abcd")
        #expect(gate.allowsToken("0123abcd"))
        #expect(!gate.allowsToken(nil))
        #expect(!gate.allowsToken(""))
        #expect(!gate.allowsToken("0123abc"))
        #expect(!gate.allowsToken("0123abcde"))
        #expect(!gate.allowsToken("0123ABCD"))
    }

    @Test("the Set-Cookie value carries the token, HttpOnly and SameSite=Strict; none without a token")
    func setCookie() {
        #expect(Self.gate().cookie == nil)
        #expect(Self.gate(token: "t0k").cookie == "br_token=t0k; Path=/; HttpOnly; SameSite=Strict")
    }

    @Test("a cookie's value is found in a Cookie header among others, spaces trimmed")
    func cookieValues() {
        #expect(RequestGate.cookieValue("br_token", in: "a=1; br_token=t0k; b=2") == "t0k")
        #expect(RequestGate.cookieValue("br_token", in: "br_token = t0k ") == "t0k")
        #expect(RequestGate.cookieValue("br_token", in: "x=a=b;br_token=c=d") == "c=d")
        #expect(RequestGate.cookieValue("br_token", in: "my_br_token=t0k; br_token_2=x") == nil)
        #expect(RequestGate.cookieValue("br_token", in: "br_token") == nil)
        #expect(RequestGate.cookieValue("br_token", in: "") == nil)
    }

    // MARK: check(_:)

    @Test("check: a request for the server's own Host passes; a foreign, missing or doubled Host is refused")
    func checkHost() {
        let gate = Self.gate()
        #expect(Self.refusal(gate, Self.request(headers: [("host", "localhost:8080")])) == nil)
        #expect(Self.isForbidden(Self.refusal(gate, Self.request(headers: [("Host", "evil.example:8080")])),
                                 saying: "\"evil.example:8080\""))
        #expect(Self.isForbidden(Self.refusal(gate, Self.request(headers: []))))
        let doubled = Self.refusal(gate, Self.request(headers: [("Host", "127.0.0.1:8080"), ("HOST", "evil.example:8080")]))
        #expect(doubled == .badRequest("the request has 2 Host headers"))
    }

    @Test("check: an Origin, when sent, must be the server's own, and only one may be sent")
    func checkOrigin() {
        let gate = Self.gate()
        let host = (name: "Host", value: "127.0.0.1:8080")
        #expect(Self.refusal(gate, Self.request(headers: [host, ("Origin", "http://127.0.0.1:8080")])) == nil)
        #expect(Self.refusal(gate, Self.request(headers: [host, ("Origin", "http://evil.example")]))
                    == .forbidden("requests from http://evil.example are refused"))
        let doubled = Self.refusal(gate, Self.request(headers: [host, ("Origin", "http://127.0.0.1:8080"),
                                                                ("origin", "http://127.0.0.1:8080")]))
        #expect(doubled == .badRequest("the request has 2 Origin headers"))
    }

    @Test("check: Sec-Fetch-Site other than same-origin or none is refused (a plain GET from another page)")
    func checkFetchSite() {
        let gate = Self.gate()
        let host = (name: "Host", value: "127.0.0.1:8080")
        for site in ["same-origin", "none", "Same-Origin"] {
            #expect(Self.refusal(gate, Self.request(headers: [host, ("Sec-Fetch-Site", site)])) == nil)
        }
        for site in ["cross-site", "same-site"] {
            #expect(Self.isForbidden(Self.refusal(gate, Self.request(headers: [host, ("Sec-Fetch-Site", site)])),
                                     saying: "Sec-Fetch-Site: \(site)"))
        }
    }

    @Test("check: the token may come as ?token=, in the named header, or in the cookie; else the hint is told")
    func checkToken() {
        let gate = Self.gate(token: "s3cret", headerName: "X-Bookrule-Token")
        let host = (name: "Host", value: "127.0.0.1:8080")
        #expect(Self.refusal(gate, Self.request(headers: [host], query: [("token", "s3cret")])) == nil)
        #expect(Self.refusal(gate, Self.request(headers: [host, ("x-bookrule-token", "s3cret")])) == nil)
        #expect(Self.refusal(gate, Self.request(headers: [host], cookies: [("br_token", "s3cret")])) == nil)
        #expect(Self.refusal(gate, Self.request(headers: [host]))
                    == .forbidden("open the address the server printed"))
        #expect(Self.isForbidden(Self.refusal(gate, Self.request(headers: [host], query: [("token", "wrong")]))))
        #expect(Self.isForbidden(Self.refusal(gate, Self.request(headers: [host], cookies: [("other", "s3cret")]))))
        // The query wins over the cookie: a wrong ?token= is not rescued by a right cookie.
        #expect(Self.isForbidden(Self.refusal(gate, Self.request(headers: [host], query: [("token", "wrong")],
                                                                  cookies: [("br_token", "s3cret")]))))
    }

    @Test("check: without a header name, a token in a header is not looked at")
    func checkTokenHeaderNotNamed() {
        let gate = Self.gate(token: "s3cret")
        let refusal = Self.refusal(gate, Self.request(headers: [("Host", "127.0.0.1:8080"), ("X-Bookrule-Token", "s3cret")]))
        #expect(Self.isForbidden(refusal))
    }

    @Test("check: the Host is checked before the token, so a right token from a foreign Host is refused")
    func checkHostBeforeToken() {
        let gate = Self.gate(token: "s3cret")
        let refusal = Self.refusal(gate, Self.request(headers: [("Host", "evil.example:8080")], query: [("token", "s3cret")]))
        #expect(Self.isForbidden(refusal, saying: "answers only requests for"))
    }

    // MARK: WebSocket handshakes

    @Test("allows(host:origin:cookie:): Host, Origin when sent, and the token from the whole Cookie header")
    func handshakeWithCookie() {
        let gate = Self.gate(token: "s3cret")
        #expect(gate.allows(host: "127.0.0.1:8081", origin: nil, cookie: "a=1; br_token=s3cret"))
        #expect(gate.allows(host: "localhost:8081", origin: "http://localhost:8080", cookie: "br_token=s3cret"))
        #expect(!gate.allows(host: nil, origin: nil, cookie: "br_token=s3cret"))
        #expect(!gate.allows(host: "evil.example:8081", origin: nil, cookie: "br_token=s3cret"))
        #expect(!gate.allows(host: "127.0.0.1:8081", origin: "http://evil.example", cookie: "br_token=s3cret"))
        #expect(!gate.allows(host: "127.0.0.1:8081", origin: nil, cookie: nil))
        #expect(!gate.allows(host: "127.0.0.1:8081", origin: nil, cookie: "br_token=wrong"))
        #expect(Self.gate().allows(host: "127.0.0.1:8081", origin: nil, cookie: nil))
    }

    @Test("allows(path:headers:): one Host, at most one Origin, the token in the path's query or the cookies")
    func handshakeWithPath() {
        let gate = Self.gate(token: "s3cret")
        let host = (name: "HOST", value: "127.0.0.1:8081")
        #expect(gate.allows(path: "/ws?x=1&token=s3cret", headers: [host]))
        #expect(gate.allows(path: "/ws", headers: [host, (name: "cookie", value: "br_token=s3cret")]))
        #expect(gate.allows(path: "/ws", headers: [host, (name: "Cookie", value: "a=1"),
                                                   (name: "Cookie", value: "br_token=s3cret")]))
        #expect(!gate.allows(path: "/ws", headers: [host]))
        #expect(!gate.allows(path: "/ws?token=wrong", headers: [host]))
        #expect(!gate.allows(path: "/ws?mytoken=s3cret", headers: [host]))
        #expect(!gate.allows(path: "/ws?token=s3cret", headers: []))
        #expect(!gate.allows(path: "/ws?token=s3cret", headers: [host, (name: "Host", value: "127.0.0.1:8081")]))
        #expect(!gate.allows(path: "/ws?token=s3cret", headers: [host, (name: "Origin", value: "http://evil.example")]))
        #expect(gate.allows(path: "/ws?token=s3cret", headers: [host, (name: "Origin", value: "http://127.0.0.1:8080")]))
        #expect(!gate.allows(path: "/ws?token=s3cret", headers: [host, (name: "Origin", value: "http://127.0.0.1:8080"),
                                                                  (name: "origin", value: "http://127.0.0.1:8080")]))
    }

    // MARK: Address helpers

    @Test("address helpers: loopback, wildcard, IP literal, URL host form")
    func addressHelpers() {
        #expect(RequestGate.isLoopback("127.0.0.1"))
        #expect(RequestGate.isLoopback("127.8.9.10"))
        #expect(RequestGate.isLoopback("::1"))
        #expect(RequestGate.isLoopback("[::1]"))
        #expect(!RequestGate.isLoopback("192.168.1.20"))
        #expect(!RequestGate.isLoopback("0.0.0.0"))
        #expect(RequestGate.isWildcard("0.0.0.0"))
        #expect(RequestGate.isWildcard("::"))
        #expect(RequestGate.isWildcard("[::]"))
        #expect(!RequestGate.isWildcard("127.0.0.1"))
        #expect(RequestGate.isIPAddress("10.1.2.3"))
        #expect(RequestGate.isIPAddress("fe80::1"))
        #expect(!RequestGate.isIPAddress("[fe80::1]"))
        #expect(!RequestGate.isIPAddress("localhost"))
        #expect(!RequestGate.isIPAddress("256.1.1.1"))
        #expect(RequestGate.urlHost("::1") == "[::1]")
        #expect(RequestGate.urlHost("[::1]") == "[::1]")
        #expect(RequestGate.urlHost("127.0.0.1") == "127.0.0.1")
    }
}

import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleHTTP
import TestSupport

/// A site that sets cookies and records the Cookie header of every request.
final class CookieSite: HTTPTransport, Sendable {
    private let sent = Locked<[String?]>([])
    let setCookies: [String: [String]]

    init(setCookies: [String: [String]]) {
        self.setCookies = setCookies
    }

    var cookieHeaders: [String?] { sent.withLock { $0 } }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        sent.withLock { $0.append(request.headers.value(for: "Cookie")) }
        let headers = (setCookies[request.url] ?? []).map { HTTPHeader("Set-Cookie", $0) }
        return HTTPResponse(url: request.url, status: 200, headers: headers)
    }
}

@Suite("Cookie jar per source")
struct CookieJarTests {
    @Test("a cookie set by the site is sent back to the same host, with its path and domain rules")
    func roundTrip() async throws {
        let site = CookieSite(setCookies: [
            "https://www.novel.test/login": ["sid=abc; Path=/; HttpOnly", "pref=1; Path=/book", "wide=yes; Domain=novel.test"],
            "https://www.novel.test/evil": ["x=1; Domain=other.test"],
        ])
        let jar = CookieJar(upstream: site)
        _ = try await jar.send(HTTPRequest(url: "https://www.novel.test/login"))
        _ = try await jar.send(HTTPRequest(url: "https://www.novel.test/book/1"))
        _ = try await jar.send(HTTPRequest(url: "https://www.novel.test/other"))
        _ = try await jar.send(HTTPRequest(url: "https://m.novel.test/"))
        _ = try await jar.send(HTTPRequest(url: "https://www.elsewhere.test/"))
        _ = try await jar.send(HTTPRequest(url: "https://www.novel.test/evil"))
        #expect(site.cookieHeaders == [nil, "pref=1; sid=abc; wide=yes", "sid=abc; wide=yes", "wide=yes", nil, "sid=abc; wide=yes"])
        #expect(jar.cookies(for: "https://other.test/") == [])
    }

    @Test("the source's own Cookie header wins for its names; expired and secure cookies are respected")
    func ownHeaderAndExpiry() async throws {
        let clock = Locked(Date(timeIntervalSince1970: 1_800_000_000))
        let site = CookieSite(setCookies: [
            "http://a.test/": ["sid=new", "short=1; Max-Age=60", "safe=1; Secure", "gone=1; Expires=Thu, 01 Jan 1970 00:00:00 GMT"],
        ])
        let jar = CookieJar(upstream: site, now: { clock.withLock { $0 } })
        _ = try await jar.send(HTTPRequest(url: "http://a.test/"))
        _ = try await jar.send(HTTPRequest(url: "http://a.test/x", headers: [HTTPHeader("Cookie", "sid=mine")]))
        #expect(site.cookieHeaders.last == "sid=mine; short=1")
        #expect(jar.cookies(for: "https://a.test/").sorted() == ["safe=1", "short=1", "sid=new"])
        clock.withLock { $0 = $0.addingTimeInterval(120) }
        #expect(jar.cookies(for: "http://a.test/") == ["sid=new"])
    }

    @Test("Domain=com and Domain=co.uk are refused (public suffixes); a registrable parent domain is accepted")
    func publicSuffixDomainsAreRefused() async throws {
        let site = CookieSite(setCookies: [
            "https://www.shop.co.uk/": ["uk=1; Domain=co.uk", "shop=1; Domain=shop.co.uk"],
            "https://www.novel.com/": ["super=1; Domain=com", "dot=1; Domain=.com", "site=1; Domain=novel.com"],
        ])
        let jar = CookieJar(upstream: site)
        _ = try await jar.send(HTTPRequest(url: "https://www.shop.co.uk/"))
        _ = try await jar.send(HTTPRequest(url: "https://www.novel.com/"))
        #expect(jar.cookies(for: "https://other.co.uk/") == [])
        #expect(jar.cookies(for: "https://m.shop.co.uk/") == ["shop=1"])
        #expect(jar.cookies(for: "https://elsewhere.com/") == [])
        #expect(jar.cookies(for: "https://m.novel.com/") == ["site=1"])
    }

    @Test("a redirect chain replayed from HAR goes through the jar: the login host's Domain cookie is sent and kept")
    func redirectCookieThroughHARReplay() async throws {
        let recording = HARRecording(entries: [
            Self.entry("https://login.example.com/login", status: 302, headers: [
                HTTPHeader("Location", "https://www.example.com/book/1"),
                HTTPHeader("Set-Cookie", "sid=s1; Domain=example.com; Path=/"), HTTPHeader("Set-Cookie", "x=1; Domain=com"),
            ]),
            Self.entry("https://www.example.com/book/1", status: 200, headers: []),
        ])
        let jar = CookieJar(upstream: HARReplayTransport(recording: recording))
        let response = try await jar.send(HTTPRequest(url: "https://login.example.com/login"))
        #expect(response.url == "https://www.example.com/book/1")
        #expect(jar.cookies(for: "https://www.example.com/") == ["sid=s1"])
    }

    private static func entry(_ url: String, status: Int, headers: [HTTPHeader]) -> HARRecording.Entry {
        HARRecording.Entry(
            startedDateTime: "2026-01-01T00:00:00.000Z", time: 0, request: HARRecording.Request(method: "GET", url: url),
            response: HARRecording.Response(
                status: status, headers: headers, content: HARRecording.Content(size: 0, mimeType: "", body: [])),
            timings: HARRecording.Timings(send: 0, wait: 0, receive: 0))
    }
}

import Testing
@testable import BookRuleDocument
@testable import BookRuleEngine
@testable import BookRuleRules
import TestSupport

@Suite("URL resolution and URL templates")
struct URLTests {
    @Test("RFC 3986 reference resolution", arguments: [
        ("g", "http://a/b/c/g"), ("./g", "http://a/b/c/g"), ("g/", "http://a/b/c/g/"), ("/g", "http://a/g"),
        ("//g", "http://g"), ("?y", "http://a/b/c/d;p?y"), ("g?y", "http://a/b/c/g?y"), ("#s", "http://a/b/c/d;p?q#s"),
        ("", "http://a/b/c/d;p?q"), (".", "http://a/b/c/"), ("..", "http://a/b/"), ("../g", "http://a/b/g"),
        ("../../../g", "http://a/g"), ("g;x=1/../y", "http://a/b/c/y"), (" 1.html ", "http://a/b/c/1.html"),
        ("https://other.test/x", "https://other.test/x"),
    ])
    func resolves(reference: String, expected: String) {
        #expect(URLReference.resolve(reference, against: "http://a/b/c/d;p?q") == expected)
    }

    @Test("the per-chapter resolution on bytes gives what the RFC resolution gives, or leaves the link to it", arguments: [
        "1.html", "./1.html", "../1.html", "a/./b", "a/../b", "a./b", ".../x", "x/..", "x/.", "a/.b/c", "/..", "/./x",
        "....", ".hidden/", "/a/b.c/d..e", "x..", "..x/y", "/book/1234/567.html", "a/b/.", "http://a/b/../c",
    ])
    func fastResolution(reference: String) throws {
        let base = try #require(URLReference.Base("http://a/b/c/d;p?q"))
        var bytes = Array(reference.utf8)
        let fast = bytes.withUnsafeMutableBufferPointer { base.fastResolve(utf8: UnsafeBufferPointer($0)) }
        if let fast { #expect(fast == URLReference.resolve(reference, against: "http://a/b/c/d;p?q")) }
        let dotted = reference.split(separator: "/", omittingEmptySubsequences: false).contains { $0 == "." || $0 == ".." }
        // Only a `.` or `..` segment sends a plain relative or absolute link to the general path.
        #expect((fast == nil) == dotted, "\(reference)")
    }

    @Test("the lower-case scheme check says yes only for http:// and https:// as written")
    func lowercaseScheme() {
        #expect(URLReference.hasLowercaseHTTPScheme("https://a.test/1.html"))
        #expect(URLReference.hasLowercaseHTTPScheme("http://a.test/"))
        #expect(!URLReference.hasLowercaseHTTPScheme("HTTP://a.test/"))
        #expect(!URLReference.hasLowercaseHTTPScheme("http:/a"))
        #expect(!URLReference.hasLowercaseHTTPScheme("javascript:void(0)"))
        #expect(!URLReference.hasLowercaseHTTPScheme(""))
        #expect(URLReference.isHTTP("HTTP://a.test/"))
    }

    @Test("<base href> changes what links resolve against")
    func baseHref() throws {
        let document = try page("<html><head><base href='/mirror/'></head><body><a href='1.html'>x</a></body></html>",
                                url: "https://site.test/book/index.html")
        #expect(document.baseURL == "https://site.test/mirror/")
    }

    @Test("{{key}}, {{page}} arithmetic and <a,b,c> by page")
    func templates() throws {
        let template = try URLTemplate("/s/<index,p{{page}},last>?q={{key}}&o={{(page-1)*20}}", field: "searchUrl")
        let first = try template.request(key: "a b", page: 1, baseURL: "https://site.test/")
        #expect(first.url == "https://site.test/s/index?q=a%20b&o=0")
        let third = try template.request(key: "x", page: 3, baseURL: "https://site.test/")
        #expect(third.url == "https://site.test/s/last?q=x&o=40")
        let second = try template.request(key: "x", page: 2, baseURL: "https://site.test/")
        #expect(second.url == "https://site.test/s/p2?q=x&o=20")
    }

    @Test("lenient options: POST with a GBK-encoded form body")
    func postOptions() throws {
        let template = try URLTemplate("/search.php,{'method':'POST','body':'searchkey={{key}}&t=1','charset':'gbk'}", field: "searchUrl")
        let request = try template.request(key: "斗破", baseURL: "https://site.test/")
        #expect(request.method == "POST")
        #expect(request.url == "https://site.test/search.php")
        #expect(request.body == Array("searchkey=%B6%B7%C6%C6&t=1".utf8))
        #expect(request.headers.value(for: "content-type") == "application/x-www-form-urlencoded")
        #expect(template.charset == "GB18030")
    }

    /// Community sources write options as Gson reads them: `;` between members, a template as a bare value
    /// (Legado substitutes it before reading the JSON), a JSON body object.
    @Test("Gson-lenient options: ';', a bare {{key}} in a JSON body")
    func gsonLenientOptions() throws {
        let template = try URLTemplate(
            "/v1/search,{\n\t\"method\":\"post\";\n\t\"body\":{\"keyword\":{{key}},\"size\":20}\n}", field: "searchUrl")
        let request = try template.request(key: "斗破", baseURL: "https://site.test/")
        #expect(request.method == "POST")
        #expect(request.url == "https://site.test/v1/search")
        #expect(request.body.map { String(decoding: $0, as: UTF8.self) } == #"{"keyword":"斗破","size":20}"#)
        // In a JSON body the key goes in as typed (Legado URL-encodes form bodies only), escaped as JSON text.
        let quoted = try URLTemplate(#"/s,{"method":"POST","body":"{\"q\":\"{{key}}\"}"}"#, field: "searchUrl")
        #expect(try quoted.request(key: #"a"b 书"#, baseURL: "https://site.test/").body
            .map { String(decoding: $0, as: UTF8.self) } == #"{"q":"a\"b 书"}"#)
        let xml = try URLTemplate(#"/s,{"method":"POST","body":"<q>{{key}}</q>"}"#, field: "searchUrl")
        #expect(try xml.request(key: "书", baseURL: "https://site.test/").body.map { String(decoding: $0, as: UTF8.self) }
            == "<q>书</q>")
    }

    @Test("JavaScript in a URL template is found at load and run when the request is built")
    func javaScriptTemplate() throws {
        let inline = try URLTemplate("/s?q={{key.toUpperCase()}}&p={{page}},{'charset':'gbk'}", field: "searchUrl")
        #expect(inline.scripts.map(\.code) == ["key.toUpperCase()"])
        #expect(inline.scripts.first?.placement == .template)
        let script = URLScriptFake { snippet, _ in snippet.code == "key.toUpperCase()" ? "斗破 A" : "" }
        let request = try inline.request(key: "斗破 a", page: 2, baseURL: "https://site.test/", script: script)
        // What a script gives is sent in the site's charset; the native {{page}} needs no script.
        #expect(request.url == "https://site.test/s?q=%B6%B7%C6%C6%20A&p=2")

        let whole = try URLTemplate("@js:'/s?q='+key", field: "searchUrl")
        #expect(whole.needsScript)
        let computed = URLScriptFake { _, result in
            guard case .text(let text) = result else { return "" }
            return text == "@js:'/s?q='+key" ? "/s?q={{key}},{'method':'POST','body':'k={{key}}'}" : ""
        }
        let post = try whole.request(key: "x", baseURL: "https://site.test/", script: computed)
        #expect(post.method == "POST" && post.url == "https://site.test/s?q=x" && post.body == Array("k=x".utf8))

        let option = try URLTemplate("/a.html,{'js':'result + \"?v=2\"'}", field: "tocUrl")
        let rewritten = URLScriptFake { _, result in result.strings.joined() + "?v=2" }
        #expect(try option.request(baseURL: "https://site.test/", script: rewritten).url == "https://site.test/a.html?v=2")
        #expect(throws: RuleError.self) { try option.request(baseURL: "https://site.test/") }
    }
}

/// Runs a URL's scripts with a Swift function of the snippet and `result`.
struct URLScriptFake: ScriptEvaluating {
    let body: @Sendable (ScriptSnippet, RuleValue) -> String
    init(_ body: @escaping @Sendable (ScriptSnippet, RuleValue) -> String) { self.body = body }
    func run(_ snippet: ScriptSnippet, result: RuleValue, in context: RuleContext,
             environment: RuleEnvironment) throws -> RuleValue {
        .text(body(snippet, result))
    }
}

@Suite struct URLOriginTests {
    @Test func schemeHostAndPortWithDefaults() throws {
        let origin = try #require(URLOrigin("https://User:pw@WWW.Example.com/x?y#z"))
        #expect(origin.scheme == "https" && origin.host == "www.example.com" && origin.port == 443)
        #expect(origin.description == "https://www.example.com:443")
        #expect(origin.authority == "www.example.com:443")
        #expect(origin.isSecure)
        #expect(URLOrigin("http://a.example")?.port == 80)
        #expect(URLOrigin("HTTP://a.example:8080?q")?.description == "http://a.example:8080")
        #expect(URLOrigin(" http://127.0.0.1:8791/book ")?.authority == "127.0.0.1:8791")
        #expect(URLOrigin("http://[::1]:8080/x")?.host == "[::1]")
        #expect(URLOrigin("http://[::1]/x")?.port == 80)
        // The same server however the URL writes it.
        #expect(URLOrigin("http://a.example/")  == URLOrigin("http://A.EXAMPLE:80/b"))
        #expect(URLOrigin("http://a.example/") != URLOrigin("https://a.example/"))
    }

    @Test(arguments: ["file:///etc/passwd", "/relative", "ftp://a.example/", "http://a.example:99999/",
                      "http://a.example:8x/", "http:///path", "http://[::1/", "http://[::1]x/", "mailto:a@b"])
    func notAnHTTPOrigin(url: String) {
        #expect(URLOrigin(url) == nil)
    }
}

import Testing
@testable import BookRuleHTTP

@Suite("PublicSuffix (libpsl)")
struct PublicSuffixTests {
    @Test("the built-in list loads")
    func loads() {
        #expect(PublicSuffix.builtin != nil)
        #expect(PublicSuffix.shared != nil)
    }

    @Test("public suffixes", arguments: ["com", "co.uk", "github.io", "uk", "cn", "com.cn", "blogspot.com"])
    func suffixes(_ domain: String) {
        #expect(PublicSuffix.isPublicSuffix(domain))
    }

    @Test("not public suffixes", arguments: ["example.com", "www.example.co.uk", "user.github.io", "qidian.com"])
    func notSuffixes(_ domain: String) {
        #expect(!PublicSuffix.isPublicSuffix(domain))
    }

    @Test("registrable domains")
    func registrable() {
        #expect(PublicSuffix.registrableDomain(of: "www.example.co.uk") == "example.co.uk")
        #expect(PublicSuffix.registrableDomain(of: "book.qidian.com") == "qidian.com")
        #expect(PublicSuffix.registrableDomain(of: "a.b.user.github.io") == "user.github.io")
        #expect(PublicSuffix.registrableDomain(of: "WWW.Example.COM.") == "example.com")
        #expect(PublicSuffix.registrableDomain(of: "co.uk") == nil)
        #expect(PublicSuffix.registrableDomain(of: "com") == nil)
        #expect(PublicSuffix.registrableDomain(of: "") == nil)
        #expect(PublicSuffix.registrableDomain(of: "www.例子.中国") == "例子.中国")
    }

    @Test("cookie Domain checks refuse supercookies")
    func cookieDomains() {
        let list = PublicSuffix.shared
        #expect(list?.isCookieDomainAcceptable(host: "www.example.co.uk", cookieDomain: ".example.co.uk") == true)
        #expect(list?.isCookieDomainAcceptable(host: "www.example.co.uk", cookieDomain: "co.uk") == false)
        #expect(list?.isCookieDomainAcceptable(host: "user.github.io", cookieDomain: "github.io") == false)
        #expect(list?.isCookieDomainAcceptable(host: "www.example.com", cookieDomain: "other.com") == false)
    }
}

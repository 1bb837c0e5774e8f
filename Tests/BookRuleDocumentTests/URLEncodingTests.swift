@testable import BookRuleDocument
import Testing

@Suite("Percent-encoding: one encoder for URLs, URL values and forms")
struct URLEncodingTests {
    @Test func aComponentKeepsRFC3986sUnreservedCharactersOnly() throws {
        #expect(try URLEncoding.component("a b~c*d+e/é") == "a%20b~c%2Ad%2Be%2F%C3%A9")
        #expect(try URLEncoding.component("斗破", charset: "GBK") == "%B6%B7%C6%C6")
    }

    @Test("A form value is java.net.URLEncoder's: `*` kept, `~` escaped, a space as + unless told otherwise")
    func aFormValueIsJavasURLEncoders() throws {
        #expect(URLEncoding.form("a b~c*d+e/é") == "a+b%7Ec*d%2Be%2F%C3%A9")
        #expect(URLEncoding.form("a b", spaceAsPlus: false) == "a%20b")
        #expect(try URLEncoding.form("斗破 苍穹", charset: "GB18030") == "%B6%B7%C6%C6+%B2%D4%F1%B7")
        #expect(try URLEncoding.form("x", charset: "") == "x")
        #expect(try URLEncoding.form("é", charset: "utf8") == "%C3%A9")
        #expect(throws: CharsetError.self) { try URLEncoding.form("x", charset: "no-such-charset") }
    }

    @Test func aWholeURLKeepsItsDelimitersAndEscapes() {
        #expect(URLEncoding.encode("http://a.test/p q?x=1&y=é#f#g") == "http://a.test/p%20q?x=1&y=%C3%A9#f%23g")
        #expect(URLEncoding.encode("http://a.test/%41%zz") == "http://a.test/%41%25zz")
    }
}

import Testing
import BookRuleDocument

@Suite("Set-Cookie fields: the one reader the cookie store and scripts share")
struct SetCookieFieldTests {
    @Test("name and value come before the first ';', attributes after it, lowercased and trimmed, commas kept")
    func nameValueAndAttributes() throws {
        let field = try #require(SetCookieField(" sid = a,b=c ; Expires=Wed, 21 Oct 2037 07:28:00 GMT;Path=/; Secure;"))
        #expect(field.name == "sid")
        #expect(field.value == "a,b=c")
        #expect(field.attributes.map(\.name) == ["expires", "path", "secure"])
        #expect(field.attributes.map(\.value) == ["Wed, 21 Oct 2037 07:28:00 GMT", "/", ""])
    }

    @Test("a field without '=' before the first ';', or with an empty name, is ignored", arguments: [
        "", "novalue", "novalue; a=b", "=value", " =value; Path=/",
    ])
    func malformedFieldIsIgnored(_ text: String) {
        #expect(SetCookieField(text) == nil)
    }

    @Test("an empty value is a value")
    func emptyValue() throws {
        let field = try #require(SetCookieField("gone=; Max-Age=0"))
        #expect(field.name == "gone" && field.value.isEmpty)
        #expect(field.attributes.map(\.name) == ["max-age"] && field.attributes.map(\.value) == ["0"])
    }
}

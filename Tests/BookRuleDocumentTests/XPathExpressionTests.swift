import BookRuleDocument
import Testing

struct XPathExpressionTests {
    // libxml2 reads the expression as a C string: "//a\0[" would otherwise compile as "//a".
    @Test("an expression with a NUL is rejected where the NUL is, not cut short")
    func nul() {
        #expect(throws: XPathError.invalid(expression: "//a\u{0}[", message: "a NUL character cannot appear in XPath",
                                           offset: 3)) {
            try XPathExpression("//a\u{0}[")
        }
        #expect(throws: Never.self) { try XPathExpression("//a[@id='x']") }
    }
}

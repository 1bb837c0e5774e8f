import BookRuleDocument
import Testing
import TestSupport

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

    static func list(_ items: Int) throws -> HTMLDocument {
        let body = (0..<items).map { "<li><a href='/c/\($0).html'>第\($0)章</a></li>" }.joined()
        return try HTMLDocument(bytes: Array("<html><body><ul>\(body)</ul></body></html>".utf8), url: "https://x.test/toc")
    }

    // Every `//li` inside the predicate searches the whole page again: n³ steps, minutes on 5,000 items.
    @Test("a predicate that searches the whole page from every node is stopped at the operation limit, in well under a second's work", .tags(.realTime))
    func operationLimitStopsQuadraticPredicates() throws {
        let document = try Self.list(5000)
        let expression = try XPathExpression("//li[//li[//li[//a]]]")
        let clock = ContinuousClock()
        let started = clock.now
        #expect(throws: XPathError.operationLimit(expression: "//li[//li[//li[//a]]]", limit: XPathExpression.operationLimit)) {
            try expression.evaluate(at: document.root)
        }
        #expect(started.duration(to: clock.now) < TestTime.bound(.seconds(10)))
        // The limit is per evaluation: the same pooled context runs a real rule right after.
        guard case .nodes(let links) = try XPathExpression("//li[a[contains(@href, '.html')]]/a").evaluate(at: document.root) else {
            Issue.record("not a node-set")
            return
        }
        #expect(links.count == 5000)
    }
}

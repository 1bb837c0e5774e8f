import Foundation
import Testing
@testable import BookRuleDocument
import TestSupport

@Suite("br:match, the PCRE2 extension function on every XPath context")
struct XPathRegexFunctionTests {
    static let html = """
    <html><body><a n="a1" href="/c/12.html">第12章</a><a n="a2" href="/about">About</a></body></html>
    """

    private func labels(_ xpath: String) throws -> [String] {
        let document = try page(Self.html)
        guard case .nodes(let nodes) = try XPathExpression(xpath).evaluate(at: document.root) else { return [] }
        return nodes.compactMap { $0.attribute("n") }
    }

    @Test("searches a string or a node's string value with a Java regex, case-sensitively")
    func searches() throws {
        #expect(try labels("//a[br:match(@href, '/c/\\d+\\.html')]") == ["a1"])
        #expect(try labels("//a[br:match(string(.), '第\\d+章')]") == ["a1"])
        #expect(try labels("//a[br:match(., 'about')]") == [])
        #expect(try labels("//a[br:match(., '(?i)about')]") == ["a2"])
        // Java's \\uXXXX escape, translated by RegexPattern.
        #expect(try labels("//a[br:match(., '\\u7B2C')]") == ["a1"])
    }

    @Test("a pooled context keeps the function: many evaluations of one document")
    func pooledContexts() throws {
        let document = try page(Self.html)
        let expression = try XPathExpression("//a[br:match(@href, '^/c/')]")
        for _ in 0..<20 {
            guard case .nodes(let nodes) = try expression.evaluate(at: document.root) else { throw TestFailure("no nodes") }
            #expect(nodes.count == 1)
        }
    }

    @Test("an invalid pattern in a hand-written XPath is an evaluation error quoting PCRE2; a wrong arity too")
    func errors() throws {
        do {
            _ = try labels("//a[br:match(@href, '(')]")
            Issue.record("an invalid pattern evaluated")
        } catch {
            #expect("\(error)".contains("invalid regex \"(\""), "\(error)")
            #expect("\(error)".contains("missing closing parenthesis"), "\(error)")
        }
        #expect(throws: XPathError.self) { try labels("//a[br:match(@href)]") }
        // Without the prefix there is no such function: no clash with a page's or rule's own names.
        #expect(throws: XPathError.self) { try labels("//a[match(@href, 'c')]") }
    }

    @Test("a catastrophic pattern over a long value stops at the match limit, quickly")
    func matchLimit() throws {
        let long = String(repeating: "a", count: 200_000) + "!"
        let document = try page("<html><body><p title=\"\(long)\">x</p></body></html>")
        let expression = try XPathExpression("//p[br:match(@title, '(a+)+$')]")
        let start = Date()
        do {
            _ = try expression.evaluate(at: document.root)
            Issue.record("the pattern finished")
        } catch {
            guard case .regexLimit(_, let pattern) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(pattern == "(a+)+$")
        }
        #expect(Date().timeIntervalSince(start) < 5)
    }

    @Test("compiled patterns are cached by text, and the cache is bounded")
    func cache() throws {
        let first = try XPathRegexFunction.compiled("x\\d+")
        #expect(try XPathRegexFunction.compiled("x\\d+") === first)
        for index in 0..<(XPathRegexFunction.cacheLimit + 20) {
            _ = try XPathRegexFunction.compiled("bounded\(index)")
        }
        #expect(XPathRegexFunction.cachedCount <= XPathRegexFunction.cacheLimit)
    }
}

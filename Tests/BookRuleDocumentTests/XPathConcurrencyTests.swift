import CLibXML2
import Testing
@testable import BookRuleDocument

@Suite("Concurrency: XPath expressions and libxml2's error handlers")
struct XPathConcurrencyTests {
    @Test("one expression with function steps, evaluated from eight tasks at once, gives every task its answer")
    func sharedExpression() async throws {
        let expression = try XPathExpression("normalize-space(//p[contains(@class, 'x')])")
        let documents = try (0..<8).map { index in
            try HTMLDocument(bytes: Array("<p class='a x'>  page   \(index) </p>".utf8), url: "https://x.test/\(index)")
        }
        let answers = try await withThrowingTaskGroup(of: (Int, String).self) { group in
            for (index, document) in documents.enumerated() {
                group.addTask {
                    var last = ""
                    for _ in 0..<200 {
                        guard case .string(let text) = try expression.evaluate(at: document.root) else { return (index, "") }
                        last = text
                    }
                    return (index, last)
                }
            }
            var answers: [Int: String] = [:]
            for try await (index, text) in group { answers[index] = text }
            return answers
        }
        #expect(answers == Dictionary(uniqueKeysWithValues: (0..<8).map { ($0, "page \($0)") }))
    }

    @Test("an app's own libxml2 error handlers are in place again after bookrule compiles and evaluates")
    func handlersRestored() throws {
        let handler: xmlStructuredErrorFunc = { _, _ in }
        let marker = UnsafeMutableRawPointer(bitPattern: 0xB00C)
        xmlSetStructuredErrorFunc(marker, handler)
        defer { xmlSetStructuredErrorFunc(nil, nil) }
        #expect(throws: XPathError.self) { try XPathExpression("//a[") }
        let document = try HTMLDocument(bytes: Array("<a>x</a>".utf8), url: "https://x.test/")
        #expect(throws: XPathError.self) { try XPathExpression("nosuchfunction(1)").evaluate(at: document.root) }
        let after = bookrule_save_error_handlers()
        #expect(after.structuredContext == marker)
        #expect(after.structured != nil)
    }
}

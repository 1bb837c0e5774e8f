#if canImport(Glibc)
import BookRuleLocking
import Glibc
#endif
import BookRuleDocument
import BookRuleEngine
import BookRuleHTTP
import BookRuleLibrary
import BookRuleRules

/// An in-memory website for engine tests: URL → response, and a log of every request made.
package final class TestSite: HTTPTransport, Sendable {
    package struct Page: Sendable {
        package var status: Int = 200
        package var headers: [HTTPHeader] = [HTTPHeader("Content-Type", "text/html")]
        package var body: [UInt8]

        /// Every setting, with the defaults above.
        package init(status: Int = 200, headers: [HTTPHeader] = [HTTPHeader("Content-Type", "text/html")], body: [UInt8]) {
            self.status = status
            self.headers = headers
            self.body = body
        }
    }

    private let pages: [String: Page]
    private let log = Locked<[HTTPRequest]>([])

    package init(_ pages: [String: Page]) {
        self.pages = pages
    }

    /// A site whose pages are UTF-8 HTML strings.
    package convenience init(html: [String: String]) {
        self.init(html.mapValues { Page(body: Array($0.utf8)) })
    }

    package var requests: [HTTPRequest] { log.withLock { $0 } }

    package func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        log.withLock { $0.append(request) }
        guard let page = pages[request.url] else {
            return HTTPResponse(url: request.url, status: 404, body: Array("not found".utf8))
        }
        return HTTPResponse(url: request.url, status: page.status, headers: page.headers, body: page.body)
    }
}

/// Loads one source from JSON text, failing the test on file-level errors.
package func loadSource(_ json: String) throws -> BookSource {
    let sources = try BookSource.load(bytes: Array(json.utf8), path: "test.json")
    guard let source = sources.first else { throw TestFailure("no source") }
    return source
}

package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// Bytes of `text` in GBK, via iconv (the decode direction is what the tests check).
package func gbk(_ text: String) throws -> [UInt8] {
    try TextTranscoder.bytes(of: text, charset: "GBK")
}

/// A parsed UTF-8 page.
package func page(_ html: String, url: String = "https://site.test/page.html") throws -> HTMLDocument {
    try HTMLDocument(bytes: Array(html.utf8), url: url)
}

/// Evaluates a string rule on a page.
package func evaluate(_ rule: String, on document: HTMLDocument, kind: RuleKind = .string) throws -> [String] {
    let parsed = try RuleParser.parse(rule, field: "test", kind: kind)
    return try parsed.strings(in: .node(document.root), environment: RuleEnvironment(baseURL: document.baseURL))
}

/// The shared corpus of real sources and pages, which lives beside the repository (`../shared/corpus`) on
/// developer machines and in CI.
package enum SharedCorpus {
    /// This checkout's root, found from this file's path.
    package static let repositoryRoot: String = {
        var parts = #filePath.split(separator: "/", omittingEmptySubsequences: false)
        parts.removeLast(3)  // Tests/BookRuleTests/TestSite.swift
        return parts.joined(separator: "/")
    }()

    package static func path(_ component: String) -> String {
        repositoryRoot + "/../shared/corpus/" + component
    }
}

/// The CPU time this thread spends in `body`: unlike wall time, it does not grow when the machine is loaded or
/// the VM pauses, so "gives up within 1 s" stays a property of the code, not of the CI host.
package func threadCPUTime(_ body: () -> Void) -> Duration {
    var start = timespec()
    var end = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &start)
    body()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &end)
    return .seconds(end.tv_sec - start.tv_sec) + .nanoseconds(end.tv_nsec - start.tv_nsec)
}

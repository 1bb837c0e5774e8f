import BookRuleJSON

/// What a handler answers: a status, headers and a whole body (the answers are small, a page or a file), or a
/// stretch of a file on disk (`file`: a whole book, a range of it).
package struct HTTPServerResponse: Sendable {
    /// The HTTP status code.
    package var status: Int
    /// Response headers, in order.
    package var headers: [(name: String, value: String)]
    /// The body.
    package var body: [UInt8]
    /// A file to send instead of `body` (which is then ignored), straight from the disk.
    package var file: HTTPServerFile?

    /// A response with `status`, `headers` and `body`.
    package init(status: Int, headers: [(name: String, value: String)] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// A plain-text answer, for errors a person reads.
    package static func text(_ status: Int, _ message: String) -> HTTPServerResponse {
        HTTPServerResponse(status: status, headers: [("Content-Type", "text/plain; charset=utf-8")],
                           body: Array((message + "\n").utf8))
    }

    /// A JSON answer written by the project's one JSON writer; a value that cannot be encoded is a 500.
    package static func json<Value: Encodable>(_ value: Value, status: Int = 200) -> HTTPServerResponse {
        do {
            return HTTPServerResponse(status: status, headers: [("Content-Type", "application/json; charset=utf-8")],
                                      body: try JSONWriter.bytes(value))
        } catch {
            return .text(500, "cannot encode the answer: \(error)")
        }
    }

    /// The first header called `name`, compared without case.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

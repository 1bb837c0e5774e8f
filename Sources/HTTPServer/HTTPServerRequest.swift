/// One request the server received, copied out of libmicrohttpd's connection before the handler runs,
/// so nothing the handler holds points into the connection's memory.
package struct HTTPServerRequest: Sendable {
    /// `GET`, `POST`, … as sent.
    package var method: String
    /// The path, percent-decoded by libmicrohttpd, without the query.
    package var path: String
    /// The query arguments, decoded, in the order sent.
    package var query: [(name: String, value: String)]
    /// The request headers (names as sent; look them up with `header(_:)`).
    package var headers: [(name: String, value: String)]
    /// The cookies the `Cookie` header sent.
    package var cookies: [(name: String, value: String)]
    /// The body, or what arrived of it up to the server's limit.
    package var body: [UInt8]
    /// Whether the body was larger than the server's limit (and `body` is cut short).
    package var bodyTooLarge: Bool
    /// Whether the client has closed its end of the connection since sending the request (it gave up waiting,
    /// or the page abandoned the request). Cheap (one `poll` without waiting); meaningful only while the
    /// handler runs.
    package var clientGone: @Sendable () -> Bool

    /// Creates a request (the server does; tests build them by hand).
    package init(method: String, path: String, query: [(name: String, value: String)] = [],
                 headers: [(name: String, value: String)] = [], cookies: [(name: String, value: String)] = [],
                 body: [UInt8] = [], bodyTooLarge: Bool = false, clientGone: @escaping @Sendable () -> Bool = { false }) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.cookies = cookies
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.clientGone = clientGone
    }

    /// How many headers called `name` the request has, compared without case.
    package func headerCount(_ name: String) -> Int {
        headers.count(where: { $0.name.lowercased() == name.lowercased() })
    }

    /// The first header called `name`, compared without case.
    package func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The first query argument called `name`.
    package func argument(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }

    /// The first cookie called `name`.
    package func cookie(_ name: String) -> String? {
        cookies.first { $0.name == name }?.value
    }
}

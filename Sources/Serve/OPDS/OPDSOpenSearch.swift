import BookRuleHTTPServer

/// An OpenSearch 1.1 description document of the catalog: what a reader fetches behind a `rel="search"` link
/// to learn how to search, as one `Url` template answering an acquisition feed. Two are served: the shelf's
/// (books whose name or author has the words) and the sources' (the configured sources searched on the sites,
/// their books to be added to the shelf).
struct OPDSOpenSearch: Sendable {
    /// The name a reader shows.
    var shortName: String
    /// What the search finds.
    var description: String
    /// The path of the search, which takes the words as `q`.
    var path: String

    /// The search over the shelf.
    static let shelf = OPDSOpenSearch(shortName: "bookrule shelf", description: "Books on the shelf by name or author",
                                      path: "/opds/search")
    /// The search over the sources.
    static let sources = OPDSOpenSearch(shortName: "bookrule sources",
                                        description: "Books the configured sources find on their sites; getting one adds it to the shelf",
                                        path: "/opds/sources/search")

    /// The description for `request`: the template is a whole URL (OpenSearch asks for one), on the scheme and
    /// host the request came by (the Host the gate let through; `https` behind a proxy that says so).
    func response(_ request: HTTPServerRequest) -> HTTPServerResponse {
        let scheme = request.header("X-Forwarded-Proto")?.lowercased() == "https" ? "https" : "http"
        let base = "\(scheme)://\(request.header("Host") ?? "127.0.0.1")"
        let template = base + OPDSXML.carrying(path + "?q={searchTerms}", token: request.argument("token"))
        let text = """
            <?xml version="1.0" encoding="UTF-8"?>
            <OpenSearchDescription xmlns="http://a9.com/-/spec/opensearch/1.1/">
              \(OPDSXML.element("ShortName", shortName))
              \(OPDSXML.element("Description", description))
              <InputEncoding>UTF-8</InputEncoding>
              <OutputEncoding>UTF-8</OutputEncoding>
              <Url type="\(OPDSXML.escaped(OPDSMediaType.acquisition))" template="\(OPDSXML.escaped(template))"/>
              <Url type="application/atom+xml" template="\(OPDSXML.escaped(template))"/>
            </OpenSearchDescription>

            """
        return HTTPServerResponse(status: 200, headers: [("Content-Type", OPDSMediaType.openSearch + ";charset=utf-8")],
                                  body: Array(text.utf8))
    }
}

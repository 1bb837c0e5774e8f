import BookRuleHTTPServer
import BookRule
import BookRuleStudio
import Foundation

extension FuzzTarget {
    private static let changingRoutes: Set<String> = ["/api/save", "/api/page", "/api/step", "/api/test", "/api/evaluate"]

    static func studio(_ bytes: [UInt8]) -> String? {
        let (selector, rest) = selector(bytes)
        if selector % 2 == 0 {
            guard let document = try? HTMLDocument(bytes: rest, url: FuzzContexts.baseURL) else { return nil }
            let page = SanitizedPage(document: document)
            if let stray = SanitizedPage.strayMarkup(in: page.html) { return "the frame's page has \(stray)" }
            return nil
        }
        guard let app = FuzzStudio.app else { return "the fuzz studio did not start" }
        let request = FuzzStudio.request(text(rest))
        let response = app.handle(request)
        // The gate holds whatever the routes do: no answer but a refusal without the token or for another host.
        let host = request.header("Host")?.lowercased()
        let hostIsStudio = request.headerCount("Host") == 1 && FuzzStudio.hosts.contains(host ?? "")
        let token = request.argument("token") ?? request.header(StudioAccess.headerName) ?? request.cookie(StudioAccess.cookieName)
        if (!hostIsStudio || token != FuzzStudio.token) && response.status < 400 {
            return "\(request.method) \(request.path) answered \(response.status) without the token and the studio's Host"
        }
        // A GET changes nothing: the changing routes refuse it.
        if ["GET", "HEAD"].contains(request.method.uppercased()), changingRoutes.contains(request.path), response.status < 400 {
            return "\(request.method) \(request.path) answered \(response.status)"
        }
        return nil
    }
}

/// The studio the `studio` target sends requests to: a fixture directory with one saved page (made once, in
/// the temporary directory), no source file (so nothing is ever saved) and no fetcher (so nothing goes out).
enum FuzzStudio {
    static let token = "fuzz-token"
    static let port: UInt16 = 8790
    static let hosts = ["127.0.0.1:\(port)", "localhost:\(port)"]

    static let app: StudioApp? = {
        let directory = NSTemporaryDirectory() + "bookrule-fuzz-studio-\(getpid())"
        try? FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try? FuzzContexts.page.write(toFile: directory + "/toc.html", atomically: true, encoding: .utf8)
        try? "{\"\(FuzzContexts.baseURL)\": \"toc.html\"}".write(toFile: directory + "/pages.json", atomically: true, encoding: .utf8)
        let assets = StudioAssets(files: ["index.html": Array("<!DOCTYPE html><p>studio</p>".utf8), "studio.js": [],
                                          "studio.css": [], "frame.css": []], codeMirror: [:])
        guard let app = try? StudioApp(sourcePath: nil, fixtureDirectory: directory, fetcher: nil, assets: assets, token: token) else {
            return nil
        }
        app.access.listening(on: port)
        return app
    }()

    /// A request from text: the first line `METHOD TARGET`, then `Name: value` headers up to an empty line, then
    /// the body. The query and the cookies are split as libmicrohttpd splits them (percent-decoding included).
    static func request(_ text: String) -> HTTPServerRequest {
        var lines = text.split(separator: "\n", omittingEmptySubsequences: false).makeIterator()
        let first = (lines.next() ?? "").split(separator: " ", maxSplits: 1)
        let method = first.first.map(String.init) ?? "GET"
        let target = first.count > 1 ? String(first[1]) : "/"
        var headers: [(name: String, value: String)] = []
        var bodyLines: [Substring] = []
        var inBody = false
        while let line = lines.next() {
            if inBody { bodyLines.append(line); continue }
            if line.isEmpty { inBody = true; continue }
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " })))
        }
        let (path, query) = target.firstIndex(of: "?").map { (String(target[..<$0]), String(target[target.index(after: $0)...])) }
            ?? (target, "")
        let arguments = query.split(separator: "&").map { pair -> (name: String, value: String) in
            let parts = pair.split(separator: "=", maxSplits: 1)
            return (decoded(parts.first ?? ""), parts.count > 1 ? decoded(parts[1]) : "")
        }
        let cookies = headers.filter { $0.name.lowercased() == "cookie" }.flatMap { header in
            header.value.split(separator: ";").map { pair -> (name: String, value: String) in
                let parts = pair.split(separator: "=", maxSplits: 1)
                return (String(parts.first ?? "").trimmingCharacters(in: .whitespaces),
                        parts.count > 1 ? String(parts[1]).trimmingCharacters(in: .whitespaces) : "")
            }
        }
        let body = Array(bodyLines.joined(separator: "\n").utf8)
        return HTTPServerRequest(method: method, path: decoded(Substring(path)), query: arguments, headers: headers, cookies: cookies,
                                 body: Array(body.prefix(65536)), bodyTooLarge: body.count > 65536)
    }

    private static func decoded(_ text: Substring) -> String {
        String(text).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String(text)
    }
}

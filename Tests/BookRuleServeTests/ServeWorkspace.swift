import BookRuleHTTP
import BookRuleJSON
import BookRuleLibrary
import BookRuleServe
import Foundation
import TestSupport

/// A generated book on a loopback mirror site, its source imported into a fresh library that holds the book with
/// its first `saved` chapters, and `bookrule serve` on that library (port 0, no pacing delay, no chapters fetched
/// ahead unless `prefetch` says how many).
final class ServeWorkspace {
    let directory: ScratchDirectory
    let site: MirrorSite
    let sourcePath: String
    let store: LibraryStore
    let book: StoredBook
    let server: ReadingServer
    var client: RawHTTP { RawHTTP(port: server.port) }
    /// The Host header the server answers.
    var host: String { "127.0.0.1:\(server.port)" }

    init(chapters: Int = 8, saved: Int = 2, siteDelay: Double = 0, token: String? = nil,
         listen: String = "127.0.0.1", web: String? = nil, prefetch: Int = 0,
         updateInterval: Duration? = nil, updateReport: @escaping @Sendable (String) -> Void = { _ in },
         webDAV: WebDAVClient? = nil) async throws {
        directory = try ScratchDirectory("serve")
        site = try MirrorSite(host: "127.0.0.1", chapters: chapters, delay: siteDelay)
        sourcePath = try site.sourceFile(named: "mirror", in: directory.path)
        let libraryPath = directory.path + "/library.sqlite"
        store = try LibraryStore(path: libraryPath)
        let transport = TransportStack.live(policy: PolitenessPolicy(delay: .zero, failureDelay: .zero, jitter: false),
                                            hostStatePath: nil)
        let fetch = BookFetch(source: try loadSource(site.sourceJSON(named: "mirror")), transport: transport.transport,
                              pacing: transport.fetcher, store: store)
        for try await _ in fetch.run(bookURL: site.bookURL, range: saved > 0 ? 1...saved : (chapters + 1)...(chapters + 1)) {}
        book = try requireValue(try store.books().first, "the book was not saved")
        var configuration = ServeConfiguration(
            libraryPath: libraryPath, sourcePaths: [sourcePath], port: 0, listenAddress: listen, webDirectory: web,
            token: token, transport: transport, siteSeconds: TestTime.seconds(30), prefetchChapters: prefetch,
            updateInterval: updateInterval, updateReport: updateReport)
        configuration.webDAV = webDAV.map { LegadoWebDAV(client: $0, libraryPath: libraryPath) }
        server = try ReadingServer(configuration: configuration)
    }

    deinit {
        // stop(waitingUpTo:) blocks until requests end: on a thread of its own, not the cooperative pool the
        // rest of the suite shares (`onOwnThread`); a deinit cannot await it.
        let server = server
        Thread.detachNewThread { server.stop(waitingUpTo: 5) }
    }

    /// GETs `target` with the right Host and returns the parsed JSON body.
    func get(_ target: String, headers: [(String, String)] = []) async throws -> JSONObject {
        try Self.object(try await client.send("GET", target, headers: headers))
    }

    /// POSTs `body` as `text/plain` (as the client's beacons do) and returns the parsed JSON body.
    func post(_ target: String, _ body: String, headers: [(String, String)] = []) async throws -> JSONObject {
        try Self.object(try await client.send("POST", target, headers: [("Origin", "http://\(host)")] + headers, body: body))
    }

    static func object(_ response: RawHTTP.Response) throws -> JSONObject {
        guard let object = try JSONParser.parse(response.body).value.objectValue else {
            throw TestFailure("not a JSON object: \(response.status) \(response.text)")
        }
        return object
    }

    /// `data` of a successful envelope.
    static func data(_ envelope: JSONObject) throws -> JSONValue {
        guard envelope["isSuccess"]?.value == .bool(true), let data = envelope["data"]?.value else {
            throw TestFailure("not a success: \(JSONValue.object(envelope).serialized())")
        }
        return data
    }

    /// A percent-encoded query value.
    static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? text
    }
}

/// `value`, or a `TestFailure` saying `what`.
func requireValue<T>(_ value: T?, _ what: String) throws -> T {
    guard let value else { throw TestFailure(what) }
    return value
}

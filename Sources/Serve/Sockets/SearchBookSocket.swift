import BookRuleHTTPServer
import BookRuleEngine
import BookRuleJSON
import BookRuleLibrary
import Foundation

/// The `searchBook` WebSocket endpoint of Legado's web service: the client sends `{"key": "…"}` and gets the
/// books found as JSON arrays of `SearchBook` entities, one array per source as it answers (only books not in
/// an earlier array: results are grouped across sources as `bookrule search --sources` groups them), then a
/// normal close. A source that fails or times out adds nothing and does not end the search.
public struct SearchBookSocket: Sendable {
    /// The sources searched (the enabled ones).
    public let sources: ServeSourceCatalog
    /// What every request goes through: the one polite fetcher.
    public let stack: TransportStack
    /// Sources at a time, time per source.
    public let options: MultiSourceSearch.Options
    /// The engines' limits and script cache.
    public let engineOptions: EngineOptions
    /// Time a client has to send its request after the handshake.
    public let requestSeconds: Double

    /// Creates the endpoint.
    public init(sources: ServeSourceCatalog, stack: TransportStack, options: MultiSourceSearch.Options = .init(),
                engineOptions: EngineOptions = EngineOptions(), requestSeconds: Double = 30) {
        self.sources = sources
        self.stack = stack
        self.options = options
        self.engineOptions = engineOptions
        self.requestSeconds = requestSeconds
    }

    /// Serves one connection (a `WebSocketEndpoints.Handler`).
    package func serve(_ session: WebSocketSession) async {
        guard let text = await ServeSocketRequest.first(of: session, within: requestSeconds) else { return }
        let key: String
        do {
            guard let value = try ServeSocketRequest(text).value("key") else {
                try? session.send("key must not be empty")
                session.close(.normal, reason: "search finished")
                return
            }
            key = value
        } catch {
            try? session.send("\(error)")
            session.close(.normal, reason: "search finished")
            return
        }
        let enabled: [BookSource]
        do {
            enabled = try await sources.enabledSources()
        } catch {
            try? session.send("the sources cannot be read: \(error)")
            session.close(.internalError, reason: "no sources")
            return
        }
        let stack = stack
        let engineOptions = engineOptions
        let search = MultiSourceSearch(sources: enabled, options: options) { source in
            SourceEngine(source: source, connection: stack.transport(for: source), options: engineOptions)
        }
        var list = FoundBookList()
        for await outcome in search.results(for: key) {
            let known = list.books.count
            list.add(outcome)
            let batch = Self.batch(list.books[known...], outcome: outcome)
            guard !batch.isEmpty else { continue }
            do {
                try session.send(String(decoding: JSONWriter.bytes(LegadoJSON.array(batch.map(\.json))), as: UTF8.self))
            } catch {
                return
            }
        }
        session.close(.normal, reason: "search finished")
    }

    /// The entities of the books `outcome` added to the list: each from the outcome's result for it.
    static func batch(_ added: ArraySlice<FoundBook>, outcome: SourceSearchOutcome) -> [LegadoSearchBook] {
        guard case .success(let page) = outcome.result else { return [] }
        let time = LibraryStore.milliseconds(Date())
        let respondTime = Int((outcome.seconds * 1000).rounded())
        return added.compactMap { book in
            guard let copy = book.copies.first, let result = page.results.first(where: { $0.bookURL == copy.bookURL }) else {
                return nil
            }
            return LegadoSearchBook(result: result, source: outcome.source, time: time, respondTime: respondTime)
        }
    }
}

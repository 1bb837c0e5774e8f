import BookRuleEngine

/// Searches many sources at once for one keyword and streams each source's outcome as it arrives.
///
/// At most `concurrency` sources run at a time; each gets `timeout` for its whole search (waiting for its
/// host's turn included) and is cancelled after it, which ends its request at once. The engines come from the
/// caller, so they share one `PoliteFetcher` and every host stays paced however many sources it serves.
/// Sources are started in the order given. Group the outcomes into books with `FoundBookList`.
public struct MultiSourceSearch: Sendable {
    /// How the search runs.
    public struct Options: Sendable {
        /// Sources searched at the same time.
        public var concurrency: Int
        /// Longest time one source may take.
        public var timeout: Duration
        /// The results page asked of every source.
        public var page: Int
        /// Longest time the whole search may take, from `results(for:)`; nil: no bound but `timeout`. A source
        /// still searching then (or not started yet) is cancelled and reported as a `timeout`, so a caller
        /// that needs an answer by then (`fetch --sources --wait`) goes on with the sources that answered.
        public var bound: Duration?

        /// Creates options: 16 at a time, 30 s per source, page 1, no bound on the whole search.
        public init(concurrency: Int = 16, timeout: Duration = .seconds(30), page: Int = 1, bound: Duration? = nil) {
            self.concurrency = max(1, concurrency)
            self.timeout = timeout
            self.page = max(1, page)
            self.bound = bound
        }
    }

    /// The sources to search.
    public let sources: [BookSource]
    /// Makes the engine for a source (over the shared fetcher, a replay…).
    public let engine: @Sendable (BookSource) -> SourceEngine
    /// How the search runs.
    public let options: Options

    /// Creates a search over `sources`, each run on the engine `engine` makes for it.
    public init(sources: [BookSource], options: Options = Options(),
                engine: @escaping @Sendable (BookSource) -> SourceEngine) {
        self.sources = sources
        self.options = options
        self.engine = engine
    }

    /// Searches every source for `keyword`; the stream ends when all have answered. Cancelling the consuming
    /// task (or dropping the stream) cancels the sources still running.
    public func results(for keyword: String) -> AsyncStream<SourceSearchOutcome> {
        let (stream, continuation) = AsyncStream.makeStream(of: SourceSearchOutcome.self)
        let end = options.bound.map { ContinuousClock.now + $0 }
        let task = Task { [self] in
            await withTaskGroup(of: SourceSearchOutcome.self) { group in
                var pending = sources[...]
                for _ in 0..<options.concurrency {
                    guard let source = pending.popFirst() else { break }
                    group.addTask { await self.search(source, keyword: keyword, end: end) }
                }
                for await outcome in group {
                    continuation.yield(outcome)
                    if Task.isCancelled { group.cancelAll() }
                    if !Task.isCancelled, let source = pending.popFirst() {
                        group.addTask { await self.search(source, keyword: keyword, end: end) }
                    }
                }
            }
            continuation.finish()
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }

    /// One source's search under the timeout, and under the whole search's `end` when there is one.
    func search(_ source: BookSource, keyword: String, end: ContinuousClock.Instant? = nil) async -> SourceSearchOutcome {
        let clock = ContinuousClock()
        let started = clock.now
        let page = options.page
        var timeout = options.timeout
        var message = "no answer within \(Self.readable(timeout))"
        if let end, let bound = options.bound, started.duration(to: end) < timeout {
            timeout = started.duration(to: end)
            message = "no answer within the search's bound of \(Self.readable(bound)); left out"
            guard timeout > .zero else {
                return SourceSearchOutcome(source: source, result: .failure(SearchFailureError(SearchFailure(
                    kind: .timeout, message: message))), seconds: 0)
            }
        }
        let engine = engine(source)
        let limit = timeout
        let timeoutMessage = message
        let result: Result<SearchPage, SearchFailureError> = await withTaskGroup(
            of: Result<SearchPage, SearchFailureError>?.self
        ) { group in
            group.addTask {
                do {
                    return .success(try await engine.search(key: keyword, page: page))
                } catch {
                    if Task.isCancelled { return nil }
                    return .failure(SearchFailureError(SearchFailure(classifying: error)))
                }
            }
            group.addTask {
                try? await Task.sleep(for: limit)
                if Task.isCancelled { return nil }
                return .failure(SearchFailureError(SearchFailure(kind: .timeout, message: timeoutMessage)))
            }
            var first: Result<SearchPage, SearchFailureError>?
            for await answer in group {
                if let answer {
                    first = answer
                    break
                }
            }
            group.cancelAll()
            return first ?? .failure(SearchFailureError(SearchFailure(kind: .timeout, message: "cancelled")))
        }
        let elapsed = clock.now - started
        return SourceSearchOutcome(source: source, result: result,
                                   seconds: Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
    }

    private static func readable(_ duration: Duration) -> String {
        let seconds = Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
        return seconds == seconds.rounded() ? "\(Int(seconds)) s" : "\(seconds) s"
    }
}

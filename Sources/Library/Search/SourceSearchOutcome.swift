import BookRuleEngine

/// What one source of a `MultiSourceSearch` gave: its results, or why it gave none.
public struct SourceSearchOutcome: Sendable {
    /// The source searched.
    public let source: BookSource
    /// The books it found (possibly none), or its failure.
    public let result: Result<SearchPage, SearchFailureError>
    /// Wall time from the source's start (after waiting for a free slot) to its answer.
    public let seconds: Double

    /// Creates an outcome.
    public init(source: BookSource, result: Result<SearchPage, SearchFailureError>, seconds: Double) {
        self.source = source
        self.result = result
        self.seconds = seconds
    }

    /// The failure, when the source failed.
    public var failure: SearchFailure? {
        if case .failure(let error) = result { return error.failure }
        return nil
    }
}

/// A `SearchFailure` as an `Error`, so outcomes can carry it in a `Result`.
public struct SearchFailureError: Error, Sendable, CustomStringConvertible {
    /// The classified failure.
    public let failure: SearchFailure
    /// Wraps a failure.
    public init(_ failure: SearchFailure) { self.failure = failure }
    public var description: String { failure.description }
}

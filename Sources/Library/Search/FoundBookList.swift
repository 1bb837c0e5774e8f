import BookRuleEngine

/// The books of a `MultiSourceSearch` so far, grouped by `BookIdentity`, and the failures by kind: add each
/// outcome as it arrives.
///
/// A result without an author joins the one book of the same name that has one (when there is exactly one),
/// and a book found first without an author takes the first one given later, so a source that does not list
/// authors does not split a book in two.
public struct FoundBookList: Sendable {
    /// The books, in the order they were first found.
    public private(set) var books: [FoundBook] = []
    /// Sources that failed, with why, in the order they answered.
    public private(set) var failures: [(source: BookSource, failure: SearchFailure)] = []
    /// Sources that answered (failed or not).
    public private(set) var sourcesDone = 0
    /// Sources that answered without finding anything.
    public private(set) var sourcesEmpty = 0

    /// An empty list.
    public init() {}

    /// Adds one source's outcome.
    public mutating func add(_ outcome: SourceSearchOutcome) {
        sourcesDone += 1
        switch outcome.result {
        case .failure(let error):
            failures.append((outcome.source, error.failure))
        case .success(let page):
            if page.results.isEmpty { sourcesEmpty += 1 }
            var seen = Set<Int>()
            for result in page.results {
                let index = place(result)
                // One source listing the same book twice counts once.
                guard seen.insert(index).inserted else { continue }
                books[index].copies.append(FoundBook.Copy(
                    sourceName: outcome.source.name, sourceURL: outcome.source.url, bookURL: result.bookURL,
                    lastChapter: result.lastChapter, variables: result.variables))
            }
        }
    }

    /// Failures counted by kind, most common first.
    public var failureCounts: [(kind: SearchFailure.Kind, count: Int)] {
        var counts: [SearchFailure.Kind: Int] = [:]
        for (_, failure) in failures { counts[failure.kind, default: 0] += 1 }
        return counts.map { ($0.key, $0.value) }.sorted { $0.count != $1.count ? $0.count > $1.count : $0.kind < $1.kind }
    }

    /// The index of the book `result` belongs to, adding a book when it is new.
    private mutating func place(_ result: SearchResult) -> Int {
        let identity = BookIdentity(name: result.name, author: result.author)
        if let index = books.firstIndex(where: { $0.identity == identity }) { return index }
        let sameName = books.indices.filter { books[$0].identity.name == identity.name }
        if identity.author.isEmpty, sameName.count == 1, let index = sameName.first { return index }
        if !identity.author.isEmpty, let index = sameName.first(where: { books[$0].identity.author.isEmpty }) {
            books[index].identity = identity
            books[index].author = result.author
            return index
        }
        books.append(FoundBook(name: result.name, author: result.author, identity: identity, copies: []))
        return books.count - 1
    }
}

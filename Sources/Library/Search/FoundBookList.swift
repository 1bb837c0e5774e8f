import BookRuleEngine

/// The books of a `MultiSourceSearch` so far, grouped by `BookIdentity`, and the failures by kind: add each
/// outcome as it arrives.
///
/// A result without an author joins the one book of the same name that has one (when there is exactly one),
/// and a book found first without an author takes the first one given later, so a source that does not list
/// authors does not split a book in two.
///
/// `ranked(in:)` is the one order books are listed and picked in (`search --sources`, `fetch --search --pick N`):
/// it does not depend on the order sources answered in, so the N a listing shows is the N `--pick` takes.
public struct FoundBookList: Sendable {
    /// The books, in the order they were first found (the order sources answered in: see `ranked(in:)`).
    public private(set) var books: [FoundBook] = []
    /// For each book of `books`, where each source listed it: source URL to the result's index on its page.
    private var positions: [[String: Int]] = []
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
            for (position, result) in page.results.enumerated() {
                let index = place(result)
                // One source listing the same book twice counts once.
                guard seen.insert(index).inserted else { continue }
                positions[index][outcome.source.url] = position
                books[index].copies.append(FoundBook.Copy(
                    sourceName: outcome.source.name, sourceURL: outcome.source.url, bookURL: result.bookURL,
                    lastChapter: result.lastChapter, variables: result.variables))
            }
        }
    }

    /// The books in listing order, the same whatever order the sources answered in: found by more sources
    /// first; then by the first of `sources` (the collection's order) that has the book, and that source's own
    /// order of its results; then by name and author. Each book's copies are in `sources`' order too (copies of a
    /// source not in `sources` after them, as they answered).
    public func ranked(in sources: [BookSource]) -> [FoundBook] {
        let order = Dictionary(sources.enumerated().map { ($0.element.url, $0.offset) }, uniquingKeysWith: { first, _ in first })
        /// (source's place in the collection, result's place on that source's page) of the first source with it.
        func key(_ index: Int) -> (source: Int, position: Int) {
            positions[index].compactMap { url, position in order[url].map { (source: $0, position: position) } }
                .min { $0.source != $1.source ? $0.source < $1.source : $0.position < $1.position } ?? (Int.max, Int.max)
        }
        let keys = books.indices.map(key)
        let ranked = books.indices.sorted { left, right in
            let (a, b) = (books[left], books[right])
            if a.copies.count != b.copies.count { return a.copies.count > b.copies.count }
            if keys[left] != keys[right] { return keys[left] < keys[right] }
            if a.identity.name != b.identity.name { return a.identity.name < b.identity.name }
            if a.identity.author != b.identity.author { return a.identity.author < b.identity.author }
            return left < right
        }
        return ranked.map { index in
            var book = books[index]
            let copies = book.copies.enumerated().sorted { left, right in
                let (a, b) = (order[left.element.sourceURL] ?? Int.max, order[right.element.sourceURL] ?? Int.max)
                return a != b ? a < b : left.offset < right.offset
            }
            book.copies = copies.map(\.element)
            return book
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
        positions.append([:])
        return books.count - 1
    }
}

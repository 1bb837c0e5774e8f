import BookRuleLocking


/// Values stored by `@put:{…}` and read by `@get:{key}` while one book is worked on.
///
/// Legado keeps these per book, so a value put on the search page can be read on the TOC page; the engine
/// carries them from one step to the next in the book models.
public final class RuleVariables: Sendable {
    private let storage: Locked<[String: String]>

    /// Creates a store holding `initial`.
    public init(_ initial: [String: String] = [:]) {
        storage = Locked(initial)
    }

    /// The value stored under `key` ("" when nothing was stored, as Legado does).
    public subscript(key: String) -> String {
        get { storage.withLock { $0[key] ?? "" } }
        set { storage.withLock { $0[key] = newValue } }
    }

    /// Everything stored so far.
    public var snapshot: [String: String] {
        storage.withLock { $0 }
    }
}

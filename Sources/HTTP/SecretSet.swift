import BookRuleLocking

/// Values that must never be written in clear (a login's credentials, its headers' values, its cookies), shared
/// by reference: the login that owns it adds to it as it learns them (a token from the login's answer), and
/// a recording redacts with what it holds when the recording is written, so even the answer that carried a
/// token before anyone knew it was one comes out `REDACTED`.
public final class SecretSet: Sendable, Hashable {
    private let state = Locked<Set<String>>([])

    /// An empty set.
    public init() {}

    /// The values.
    public var values: Set<String> { state.withLock { $0 } }

    /// Adds `values` (empty strings are ignored).
    public func insert<Values: Sequence<String>>(_ values: Values) {
        state.withLock { $0.formUnion(values.filter { !$0.isEmpty }) }
    }

    public static func == (left: SecretSet, right: SecretSet) -> Bool { left === right }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

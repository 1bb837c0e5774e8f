import BookRuleLocking

/// Values that must never be written in clear (a login's passwords, its headers' values, its cookies), shared
/// by reference: the login that owns it adds to it as it learns them (a token from the login's answer), and
/// a recording redacts with what it holds when the recording is written, so even the answer that carried a
/// token before anyone knew it was one comes out `REDACTED`.
public final class SecretSet: Sendable, Hashable {
    private let state = Locked<(values: Set<String>, formValues: Set<String>)>(([], []))

    /// An empty set.
    public init() {}

    /// The values redacted wherever they appear.
    public var values: Set<String> { state.withLock { $0.values } }

    /// Form values that are not secrets everywhere (a user name, a server address), redacted only in request
    /// bodies, where the login form sends them: a user name on every page or a server in every URL stays.
    public var formValues: Set<String> { state.withLock { $0.formValues } }

    /// Adds `values` (empty strings are ignored).
    public func insert<Values: Sequence<String>>(_ values: Values) {
        state.withLock { $0.values.formUnion(values.filter { !$0.isEmpty }) }
    }

    /// Adds form values redacted only in request bodies.
    public func insert<Values: Sequence<String>>(formValues: Values) {
        state.withLock { $0.formValues.formUnion(formValues.filter { !$0.isEmpty }) }
    }

    public static func == (left: SecretSet, right: SecretSet) -> Bool { left === right }

    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}

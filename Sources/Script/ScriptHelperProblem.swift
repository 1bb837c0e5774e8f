/// A `java.*` helper (or Java access) a snippet names that cannot run here, found without running it.
public struct ScriptHelperProblem: Sendable, Equatable, Hashable, CustomStringConvertible {
    /// Why it cannot run.
    public enum Kind: String, Sendable, Equatable, Hashable {
        /// It shows a browser window to a person (`java.showBrowser`); the headless `java.webView` and
        /// `java.startBrowserAwait` run.
        case needsBrowser
        /// It asks the reader for something (`java.getVerificationCode`).
        case needsPerson
        /// It is refused on purpose: files, Java classes, reflection (`java.readFile`, `Packages`).
        case refused
        /// Legado (or a fork) has it, bookrule does not.
        case notImplemented
    }

    /// The name as written, e.g. `java.webView` or `Packages`.
    public var name: String
    /// Why it cannot run.
    public var kind: Kind
    /// A sentence for the user, e.g. "java.showBrowser needs a browser window a person looks at…".
    public var reason: String

    /// Creates a problem.
    public init(name: String, kind: Kind, reason: String) {
        self.name = name
        self.kind = kind
        self.reason = reason
    }

    /// The reason.
    public var description: String { reason }
}

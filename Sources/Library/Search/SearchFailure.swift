import BookRuleEngine

/// Why one source of a `MultiSourceSearch` gave no results, sorted into the few kinds a reader can act on.
public struct SearchFailure: Sendable, Equatable, Codable, CustomStringConvertible {
    /// The kinds of failure, as a summary counts them.
    public enum Kind: String, Sendable, Codable, CaseIterable, Comparable {
        /// The source did not answer within the per-source timeout (or a request timed out).
        case timeout
        /// The site answered with an error status, or could not be reached at all.
        case httpError = "http error"
        /// The site refused us: 401/403/429, a Retry-After longer than the cap, an open breaker.
        case blocked
        /// The rules ran and broke on the page (a rule error, an unparsable page, a field empty everywhere).
        case ruleBroke = "rule broke"
        /// The source could not run its search step at all (no search URL, unusable rules, a script error).
        case couldNotRun = "could not run"

        public static func < (lhs: Kind, rhs: Kind) -> Bool {
            allCases.firstIndex(of: lhs) ?? 0 < allCases.firstIndex(of: rhs) ?? 0
        }
    }

    /// Which kind of failure.
    public var kind: Kind
    /// What went wrong, in the engine's words.
    public var message: String

    /// Creates a failure.
    public init(kind: Kind, message: String) {
        self.kind = kind
        self.message = message
    }

    public var description: String { "\(kind.rawValue): \(message)" }

    /// Sorts an error thrown by a source's search into a kind.
    public init(classifying error: any Error) {
        self.init(kind: Self.kind(of: error), message: "\(error)")
    }

    private static func kind(of error: any Error) -> Kind {
        switch FailureCause(error) {
        case .timedOut: return .timeout
        case .unreachable, .httpStatus, .redirects, .bodyTooLarge: return .httpError
        case .refused, .antiBotPage, .breakerOpen, .hostDeferred: return .blocked
        case .undecodablePage, .ruleFailed, .unusableURL: return .ruleBroke
        case .unusableRules, .scriptFailed, .notRecorded, .other: return .couldNotRun
        }
    }
}

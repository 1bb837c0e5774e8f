import BookRuleEngine
import BookRuleHTTP
import BookRuleRules
import BookRuleScript

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
        if let error = error as? FetchError { return kind(of: error) }
        if let error = error as? HTTPTransportError { return kind(of: error) }
        if error is ScriptError { return .couldNotRun }
        guard let error = error as? EngineError else { return .couldNotRun }
        switch error {
        case .unusableRules, .missingRule: return .couldNotRun
        case .httpStatus(_, let status): return [401, 403, 429].contains(status) ? .blocked : .httpError
        case .blocked: return .blocked
        case .transport(_, let underlying): return kind(of: underlying)
        case .document, .rule, .invalidURL, .fieldEmptyEverywhere: return .ruleBroke
        }
    }

    private static func kind(of error: FetchError) -> Kind {
        switch error {
        case .hostDeferred, .breakerOpen: return .blocked
        case .gaveUp(_, _, let status, let message):
            if let status, [401, 403, 429].contains(status) { return .blocked }
            if status == nil, message?.contains("timed out") == true { return .timeout }
            return .httpError
        case .invalidURL: return .couldNotRun
        }
    }

    private static func kind(of error: HTTPTransportError) -> Kind {
        switch error {
        case .timedOut: return .timeout
        case .invalidURL, .unsupportedScheme: return .couldNotRun
        default: return .httpError
        }
    }
}

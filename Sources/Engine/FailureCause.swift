import BookRuleBrowser
import BookRuleHTTP
import BookRuleScript

/// What made an engine step fail, read once from whatever error it threw (an `EngineError` and the transport,
/// fetcher, replay or script error under it).
///
/// The reports that sort failures for a reader or a source maintainer (`bookrule test --live`'s failure kinds,
/// a multi-source search's summary) each group these causes their own way; reading the error tree happens only
/// here, so a new error case is classified in one place.
public enum FailureCause: Sendable, Equatable {
    /// No answer: DNS, a refused or reset connection, a proxy that failed, retries that never got a status.
    case unreachable
    /// A request ran out of time.
    case timedOut
    /// The polite fetcher stopped sending to the host for this run after repeated failures.
    case breakerOpen
    /// The host asked, with `Retry-After`, for a pause longer than the cap; its work was deferred.
    case hostDeferred
    /// The site refused the request: HTTP 401, 403 or 429.
    case refused(status: Int)
    /// The site answered with another error status (directly or on the last retry).
    case httpStatus(Int)
    /// The redirects went on too long or in a loop.
    case redirects
    /// The site answered with an anti-bot page instead of the page.
    case antiBotPage
    /// The answer was over the body size cap.
    case bodyTooLarge
    /// The page could not be decoded or parsed.
    case undecodablePage
    /// The source lacks usable rules for the step (missing or broken at load).
    case unusableRules
    /// A rule failed while running, or a field came back empty in every element its list selected.
    case ruleFailed
    /// A URL the rules made (or a redirect led to) is not a usable http(s) URL.
    case unusableURL
    /// A script of the source threw, timed out or does not parse.
    case scriptFailed
    /// A replay has no recording (or saved page) for the request, or the recording is a failure.
    case notRecorded
    /// Anything else.
    case other

    /// The cause of `error`.
    public init(_ error: any Error) {
        switch error {
        case let error as EngineError: self = Self.cause(of: error)
        case let error as HTTPTransportError: self = Self.cause(of: error)
        case let error as FetchError: self = Self.cause(of: error)
        case let error as HARReplayError:
            switch error {
            case .tooManyRedirects, .redirectLoop, .invalidRedirect: self = .redirects
            case .notRecorded, .recordedFailure: self = .notRecorded
            }
        case is SavedPageError: self = .notRecorded
        case is ScriptError: self = .scriptFailed
        case let error as WebViewFailure: self = FailureCause(error.error)
        // A page's script that never ended or threw is the source's; no Chromium is a check that could not run.
        case BrowserError.timeLimit, BrowserError.scriptFailed, BrowserError.emptyResult, BrowserError.badPattern: self = .scriptFailed
        default: self = .other
        }
    }

    private static func cause(of error: EngineError) -> FailureCause {
        switch error {
        case .httpStatus(_, let status): return [401, 403, 429].contains(status) ? .refused(status: status) : .httpStatus(status)
        case .transport(_, let underlying): return FailureCause(underlying)
        case .document: return .undecodablePage
        case .rule, .fieldEmptyEverywhere: return .ruleFailed
        case .unusableRules, .missingRule: return .unusableRules
        case .invalidURL: return .unusableURL
        case .blocked: return .antiBotPage
        }
    }

    private static func cause(of error: HTTPTransportError) -> FailureCause {
        switch error {
        case .connectionFailed, .couldNotConnect, .proxyFailed, .nameNotResolved: return .unreachable
        case .timedOut, .connectTimedOut: return .timedOut
        case .tooManyRedirects, .redirectLoop: return .redirects
        case .invalidURL, .unsupportedScheme, .reservedDestination: return .unusableURL
        case .bodyTooLarge: return .bodyTooLarge
        }
    }

    private static func cause(of error: FetchError) -> FailureCause {
        switch error {
        case .hostDeferred: return .hostDeferred
        case .breakerOpen: return .breakerOpen
        case .hostDown: return .unreachable
        case .gaveUp(_, _, let status, let message):
            if let status { return [401, 403, 429].contains(status) ? .refused(status: status) : .httpStatus(status) }
            // The fetcher keeps only the last transport error's words once it gives up.
            return message?.contains("timed out") == true ? .timedOut : .unreachable
        case .invalidURL: return .unusableURL
        }
    }
}

import BookRuleEngine

/// Why a source failed its check, in the terms a maintainer of thousands of sources sorts by: the site is
/// down, the site refused the robot, the site answered with an error, the source's rules no longer fit the
/// site, or the check itself could not run (a fixture without the page, a host deferred by `Retry-After`).
/// Only `ruleBroke` asks for the source to be edited; the others ask for a retry or a look at the site.
public enum FailureKind: String, Sendable, Codable, CaseIterable, CustomStringConvertible {
    /// No answer: DNS, connection refused or reset, timeouts, a host whose breaker opened.
    case unreachable
    /// The site answered with an anti-bot page (`AntiBotPage`): a challenge, a block, a script stub, a captcha.
    case blocked
    /// The site answered with an HTTP error status (or kept redirecting).
    case httpError = "http-error"
    /// A rule failed or found nothing, a URL it made is unusable, or the result differs from the snapshot.
    case ruleBroke = "rule-broke"
    /// The check could not run to a verdict: the fixture lacks a page, the host deferred the run, a page could
    /// not be decoded.
    case couldNotCheck = "could-not-check"

    /// The words a report prints, e.g. "blocked by an anti-bot page".
    public var description: String {
        switch self {
        case .unreachable: return "unreachable"
        case .blocked: return "blocked by an anti-bot page"
        case .httpError: return "HTTP error"
        case .ruleBroke: return "a rule broke"
        case .couldNotCheck: return "could not check"
        }
    }

    /// The kind of failure `error` (thrown by an engine step) is.
    public static func classify(_ error: any Error) -> FailureKind {
        switch FailureCause(error) {
        case .unreachable, .timedOut, .breakerOpen: return .unreachable
        case .antiBotPage: return .blocked
        case .refused, .httpStatus, .redirects: return .httpError
        case .unusableRules, .ruleFailed, .unusableURL, .scriptFailed: return .ruleBroke
        case .hostDeferred, .bodyTooLarge, .undecodablePage, .notRecorded, .other: return .couldNotCheck
        }
    }
}

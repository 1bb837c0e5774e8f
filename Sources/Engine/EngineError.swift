import BookRuleDocument
import BookRuleRules

/// Why an engine step failed.
public enum EngineError: Error, Sendable, CustomStringConvertible {
    /// The step needs rules that the source does not have in a usable form.
    case unusableRules(step: String, problems: [SourceProblem])
    /// The step needs a rule the source leaves empty.
    case missingRule(field: String)
    /// The site answered with an error status.
    case httpStatus(url: String, status: Int)
    /// No response at all (connection, timeout, missing recording, a host the polite fetcher stopped); the
    /// transport's own error is kept so callers can tell a deferred host from a dropped connection.
    case transport(url: String, error: any Error)
    /// The page could not be decoded or parsed.
    case document(url: String, error: DocumentError)
    /// A rule failed while running (a regex over its backtracking limit, an XPath runtime error).
    indirect case rule(url: String, error: RuleError)
    /// A URL the source produced is not an http(s) URL.
    case invalidURL(field: String, url: String)
    /// The site answered with an anti-bot page (a challenge, a block, a captcha) instead of the page.
    case blocked(url: String, status: Int, page: AntiBotPage)
    /// A field rule gave nothing in every element its list rule selected: the list matched, the field did not
    /// (a rule read in another dialect than meant, an attribute that is not there). `cause` is the field's
    /// first failure, when it failed rather than matched nothing (a script stopped at its CPU time limit).
    indirect case fieldEmptyEverywhere(field: String, list: String, elements: Int, cause: RuleError?)

    public var description: String {
        switch self {
        case .unusableRules(let step, let problems):
            let list = problems.map { "  " + $0.description }.joined(separator: "\n")
            return "\(step) cannot run: the source's rules for it are not usable:\n\(list)"
        case .missingRule(let field):
            return "the source has no \(field) rule, which this step needs"
        case .httpStatus(let url, let status):
            return "\(url) answered HTTP \(status)"
        case .transport(let url, let error):
            return "\(url): \(error)"
        case .document(let url, let error):
            return "\(url): \(error)"
        case .rule(let url, let error):
            return "\(error) (on \(url))"
        case .invalidURL(let field, let url):
            return "\(field) gave \"\(url)\", which is not an http(s) URL"
        case .blocked(let url, let status, let page):
            return "\(url) answered HTTP \(status) with \(page)"
        case .fieldEmptyEverywhere(let field, let list, let elements, let cause):
            let failure = cause.map { cause in
                "; it failed" + (cause.dialect.map { " (\($0.rawValue))" } ?? "") + ": " + cause.reason
            }
            return "\(field) was empty in all \(elements) element(s) \(list) selected, so no usable entries came out"
                + (failure ?? "")
        }
    }
}

/// Why a login could not be done.
public enum LoginError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The source has no usable `loginUrl`.
    case nothingToLogIn(source: String)
    /// The engine keeps no login: its `SourceTransport` was built without a `LoginStore`.
    case noStore
    /// No `loginUi` button has that name; `buttons` lists those that do.
    case unknownButton(name: String, buttons: [String])
    /// The button's action is a web address (Legado opens it in a browser): nothing to run.
    case opensPage(button: String, url: String)
    /// The login page answered with an error status.
    case refused(url: String, status: Int)

    public var description: String {
        switch self {
        case .nothingToLogIn(let source):
            return "\(source) has no usable loginUrl, so there is nothing to log in to"
        case .noStore:
            return "this run keeps no logins (the transport was not built with a login store)"
        case .unknownButton(let name, let buttons):
            let known = buttons.isEmpty ? "the source's loginUi has no buttons with an action"
                : "its buttons are: " + buttons.map { "\"\($0)\"" }.joined(separator: ", ")
            return "loginUi has no button \"\(name)\"; \(known)"
        case .opensPage(let button, let url):
            return "the button \"\(button)\" opens \(url) in a browser; there is nothing to run (open it yourself)"
        case .refused(let url, let status):
            return "the login at \(url) answered HTTP \(status)"
        }
    }
}

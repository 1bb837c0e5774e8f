/// Which of a source's stored login values a script reads or writes.
public enum ScriptLoginField: String, Sendable {
    /// The login form's values as a JSON object (`source.getLoginInfo()`, `putLoginInfo`), Legado's "user info".
    case info
    /// Headers added to every request of the source, as a JSON object (`source.getLoginHeader()`, `putLoginHeader`).
    case header
}

extension ScriptHost {
    /// No login kept: hosts that do not keep logins (tests, fuzzing) need not say so.
    public func loginValue(_ field: ScriptLoginField) -> String? { nil }
    /// Keeps nothing.
    public func setLoginValue(_ field: ScriptLoginField, _ value: String?) {}
    /// No login script.
    public func loginScript() -> String? { nil }
    /// Nothing to log in to.
    public func loginThroughURL() throws {}
}

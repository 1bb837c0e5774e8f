import Foundation

/// A WebDAV account: the user name and the password sent with Basic authentication on every request.
///
/// Its description names the user only, so an error, a log line or a `print` of it never shows the password.
public struct WebDAVCredentials: Sendable, Equatable, CustomStringConvertible {
    /// The account's user name.
    public var user: String
    /// The password (or an app password, as 坚果云 issues).
    public var password: String

    /// Creates credentials.
    public init(user: String, password: String) {
        self.user = user
        self.password = password
    }

    /// The `Authorization` field's value: `Basic` and base64 of `user:password` in UTF-8 (RFC 7617).
    var authorization: String {
        "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
    }

    /// The user, never the password.
    public var description: String { "WebDAV user \(user)" }
}

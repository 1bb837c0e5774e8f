/// Why a WebDAV request did not do what it was asked, in words a user can act on. The password never
/// appears in any of them.
public enum WebDAVError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The server refused the user name and password (401).
    case unauthorized(url: String, user: String)
    /// The server knows the account but refuses it this (403).
    case forbidden(url: String, user: String)
    /// The address answers, but not as a WebDAV server (PROPFIND refused or not answered with a multistatus).
    case notWebDAV(url: String, status: Int, reason: String)
    /// The folder does not exist on the server (404 to PROPFIND, 409 to a PUT or MKCOL inside it).
    case folderMissing(url: String)
    /// The file does not exist on the server (404 to GET).
    case fileMissing(url: String)
    /// The server has no room left for the file (507).
    case insufficientStorage(url: String)
    /// Any other status the request cannot go on with.
    case unexpectedStatus(method: String, url: String, status: Int)
    /// No answer: the server cannot be reached, the connection dropped, a redirect was not followed (the
    /// password is not sent on to another address), or an answer was larger than allowed.
    case unreachable(url: String, reason: String)
    /// The URL given is not an http(s) address.
    case invalidURL(url: String)

    /// What went wrong and what to do about it.
    public var description: String {
        switch self {
        case .unauthorized(let url, let user):
            return "\(url): the WebDAV server refused user \(user) (401): check the user name and password " +
                "(坚果云 and some other servers need an app password, not the account's own)"
        case .forbidden(let url, let user):
            return "\(url): the WebDAV server does not let user \(user) do this (403)"
        case .notWebDAV(let url, let status, let reason):
            return "\(url) is not a WebDAV folder (HTTP \(status)): \(reason); check the URL (坚果云's is https://dav.jianguoyun.com/dav/)"
        case .folderMissing(let url):
            return "\(url): no such folder on the WebDAV server"
        case .fileMissing(let url):
            return "\(url): no such file on the WebDAV server"
        case .insufficientStorage(let url):
            return "\(url): the WebDAV server has no room left for it (507 Insufficient Storage)"
        case .unexpectedStatus(let method, let url, let status):
            return "\(url): the WebDAV server answered \(method) with HTTP \(status)"
        case .unreachable(let url, let reason):
            return "\(url): no answer from the WebDAV server: \(reason)"
        case .invalidURL(let url):
            return "\(url) is not an http:// or https:// address"
        }
    }
}

import BookRuleHTTPServer
import Foundation

/// Who may read the catalog. E-readers send HTTP Basic authentication and keep no cookies, so where the rest of
/// `bookrule serve` wants the token as `?token=` or its cookie, `/opds` also takes it as the Basic password
/// (user `bookrule`), and a request without it is answered 401 with `WWW-Authenticate: Basic`, which makes the
/// reader ask for it. Without a token (loopback, no `--token`) nothing is asked. The gate's other checks
/// (Host, Origin, where a browser says the request comes from) hold as for every route.
struct OPDSAccess: Sendable {
    /// The user name the Basic credentials must carry.
    static let user = "bookrule"
    /// The realm a reader shows when it asks for the password.
    static let realm = "bookrule OPDS catalog"
    /// The longest `Authorization` header read.
    static let headerLimit = 4096

    /// The server's gate.
    let gate: RequestGate

    /// The answer refusing `request`, nil when it may go on.
    func refusal(of request: HTTPServerRequest) -> HTTPServerResponse? {
        let given = Self.basicPassword(request) ?? request.argument("token")
        guard gate.allowsToken(given) else {
            var response = HTTPServerResponse.text(401, "the catalog needs the user \(Self.user) and the token bookrule serve printed as the password")
            response.headers.append(("WWW-Authenticate", "Basic realm=\"\(Self.realm)\", charset=\"UTF-8\""))
            return response
        }
        // The token is right (or none is needed): the gate checks the rest as for any request.
        var checked = request
        if let given { checked.query.insert((name: "token", value: given), at: 0) }
        do {
            try gate.check(checked)
            return nil
        } catch {
            switch error {
            case .badRequest(let reason): return .text(400, reason)
            case .forbidden(let reason): return .text(403, reason)
            }
        }
    }

    /// The password of the request's Basic credentials when their user is `user`; nil when there are none,
    /// they are malformed, or they name another user.
    static func basicPassword(_ request: HTTPServerRequest) -> String? {
        guard let header = request.header("Authorization"), header.utf8.count <= headerLimit else { return nil }
        let parts = header.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "basic",
              let decoded = Data(base64Encoded: parts[1].trimmingCharacters(in: .whitespaces)),
              let credentials = String(data: decoded, encoding: .utf8),
              let colon = credentials.firstIndex(of: ":") else { return nil }
        guard credentials[..<colon] == user else { return nil }
        return String(credentials[credentials.index(after: colon)...])
    }
}

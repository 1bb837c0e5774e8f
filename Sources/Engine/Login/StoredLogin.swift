import BookRuleJSON

/// What is kept of one source's login between runs: the form's values, the headers every request gets, and
/// the cookies the login left. Credentials: a `LoginStore` keeps it encrypted, and a recording redacts it.
public struct StoredLogin: Sendable, Equatable {
    /// The login form's values as a JSON object (`source.getLoginInfo()`); nil when none.
    public var info: String?
    /// Headers added to every request of the source, as a JSON object (`source.putLoginHeader`); nil when none.
    public var header: String?
    /// Cookies per site: a URL and the `name=value; …` pairs sent to it, restored into the source's jar.
    public var cookies: [String: String]

    /// Creates a login.
    public init(info: String? = nil, header: String? = nil, cookies: [String: String] = [:]) {
        self.info = info
        self.header = header
        self.cookies = cookies
    }

    /// Whether nothing is kept.
    public var isEmpty: Bool { info == nil && header == nil && cookies.isEmpty }

    /// The header JSON as fields, in the object's order; values that are not strings or numbers are skipped.
    public var headerFields: [(name: String, value: String)] {
        Self.members(header)
    }

    /// The form's values, in the object's order.
    public var infoFields: [(name: String, value: String)] {
        Self.members(info)
    }

    /// Every value that must never be written in clear: the values of the form's `secretFields`, the headers'
    /// values and the cookies' values; and the form's other values, which the login sends (`formValues`).
    public func secrets(secretFields: Set<String>) -> (secrets: [String], formValues: [String]) {
        let info = infoFields
        let secret = info.filter { secretFields.contains($0.name) }.map(\.value)
        let others = info.filter { !secretFields.contains($0.name) }.map(\.value)
        return ((secret + headerFields.map(\.value) + cookieValues).filter { !$0.isEmpty }, others.filter { !$0.isEmpty })
    }

    private var cookieValues: [String] {
        cookies.values.flatMap { pairs in
                pairs.split(separator: ";").compactMap { pair in
                    pair.split(separator: "=", maxSplits: 1).dropFirst().first.map { String($0).trimmingASCIIWhitespace() }
                }
            }.filter { !$0.isEmpty }
    }

    private static func members(_ text: String?) -> [(name: String, value: String)] {
        guard let text, let node = try? JSONParser.parse(text, lenient: true), case .object(let object) = node.value else { return [] }
        return object.members.compactMap { member in
            switch member.value.value {
            case .string(let value): return (member.key, value)
            case .number(let literal): return (member.key, literal)
            case .bool(let value): return (member.key, value ? "true" : "false")
            default: return nil
            }
        }
    }
}

/// Where logins are kept between runs, one per source (by `bookSourceUrl`). The command line's is an
/// encrypted file under the user's configuration folder (`LoginVault` in the Library layer); tests and apps
/// may give their own.
public protocol LoginStore: Sendable {
    /// The login kept for the source whose `bookSourceUrl` is `sourceKey`, nil when none.
    /// - Throws: when the store cannot be read (damaged, or encrypted under another key).
    func login(forSource sourceKey: String) throws -> StoredLogin?
    /// Keeps `login` for the source (an empty or nil login removes it).
    func save(_ login: StoredLogin?, forSource sourceKey: String) throws
}

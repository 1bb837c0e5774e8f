import BookRuleDocument

/// A request a script makes through its host.
public enum ScriptRequest: Sendable, Equatable {
    /// A Legado URL string as `java.ajax` and `java.connect` take it: `url` or `url,{"method":"POST",…}`,
    /// possibly with `{{…}}` templates, fetched with the source's headers and cookies like any rule URL.
    case spec(String)
    /// A request spelled out (`java.get`, `java.post`, `java.head`): Legado sends these without following
    /// redirects, with exactly the given headers added to the source's.
    case explicit(url: String, method: String, headers: [String: String], body: String?)

    /// The URL (for a spec: the part before the options).
    public var url: String {
        switch self {
        case .spec(let spec):
            // Not at `,{{page}}`: a template is not an options object.
            return URLWithOptions(spec).address
        case .explicit(let url, _, _, _):
            return url
        }
    }
}

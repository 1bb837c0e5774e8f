/// A transport that sends through another one, so what lies under it can be found: the source's cookie jar
/// under its login (`SourceLoginTransport`), under a check's anti-bot watch, under the studio's capture.
///
/// The engine finds a source's `CookieJar` this way (`HTTPTransport.cookieJar`) to seed a webView page with
/// the source's cookies and to keep the ones the page set; a wrapper that does not say what it wraps hides the
/// jar, and a cookie a page's script sets is then lost.
public protocol WrappingTransport: HTTPTransport {
    /// The transport this one sends through.
    var wrapped: any HTTPTransport { get }
}

extension HTTPTransport {
    /// The first transport of type `Layer` from this one down through the wrapping ones (at most 32 deep), or
    /// nil when there is none.
    public func layer<Layer>(_ type: Layer.Type) -> Layer? {
        var current: any HTTPTransport = self
        for _ in 0..<32 {
            if let found = current as? Layer { return found }
            guard let wrapper = current as? any WrappingTransport else { return nil }
            current = wrapper.wrapped
        }
        return nil
    }

    /// The source's cookie jar under this transport (`enabledCookieJar`), nil when it keeps none.
    public var cookieJar: CookieJar? { layer(CookieJar.self) }
}

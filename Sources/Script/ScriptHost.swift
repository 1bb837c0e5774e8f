/// What scripts reach outside the sandbox, provided by the engine: the network (through the polite fetcher,
/// so it is paced, recorded and replayed like every request), messages, the source's stored variable,
/// cookies and the cache.
///
/// Called on the runtime's thread, synchronously; a method may block (a fetch waits for its answer).
public protocol ScriptHost: Sendable {
    /// Fetches `request` (`java.ajax`, `java.connect`, `java.get`/`post`/`head`, `java.ajaxAll`).
    /// - Throws: whatever went wrong; `java.ajax` and `java.connect` turn it into text, as Legado does.
    func fetch(_ request: ScriptRequest) throws -> ScriptResponse
    /// Shows `text` (`java.log`, `java.toast`, `java.longToast`): a warning or a debugging line.
    func message(_ text: String, kind: ScriptMessageKind)
    /// The source's key, its `bookSourceUrl` (`source.getKey()`, `source.bookSourceUrl`).
    var sourceKey: String { get }
    /// The source's name, its `bookSourceName` (`source.getTag()`, `source.bookSourceName`).
    var sourceName: String { get }
    /// The source's stored variable (`source.getVariable()`), nil when none was set.
    func sourceVariable() -> String?
    /// Stores the source's variable (`source.setVariable(v)`); nil removes it.
    func setSourceVariable(_ value: String?)
    /// The cookie header stored for `url`'s site (`cookie.getCookie(url)`, `java.getCookie(url)`), "" if none.
    func cookie(for url: String) -> String
    /// Stores `cookie` (a `name=value; name2=value2` string) for `url`'s site (`cookie.setCookie`).
    func setCookie(_ url: String, _ cookie: String)
    /// Forgets the cookies of `url`'s site (`cookie.removeCookie`).
    func removeCookie(_ url: String)
    /// The cached value under `key` (`cache.get`), nil when missing or expired.
    func cacheGet(_ key: String) -> String?
    /// Caches `value` under `key` for `seconds` (nil: without expiry) (`cache.put`).
    func cachePut(_ key: String, _ value: String, seconds: Int?)
    /// Removes `key` from the cache (`cache.delete`).
    func cacheRemove(_ key: String)
    /// The clock and randomness scripts see: `.fixed` under `bookrule test`, so replays are identical.
    var clock: ScriptClock { get }
    /// The source's stored login value (`source.getLoginInfo()`, `getLoginHeader()`), nil when none is kept.
    func loginValue(_ field: ScriptLoginField) -> String?
    /// Keeps (nil: forgets) the source's login value (`source.putLoginInfo`, `putLoginHeader`, `remove…`).
    func setLoginValue(_ field: ScriptLoginField, _ value: String?)
    /// The JavaScript of the source's `loginUrl` when it is a script defining `login()`, for `source.login()`.
    func loginScript() -> String?
    /// Logs in through the source's `loginUrl` when it is a URL (`source.login()` of such a source).
    func loginThroughURL() throws
    /// Renders `page` in a browser whose every request goes through the host's fetcher, and gives what it
    /// asked for (`java.webView` and its companions).
    func webView(_ page: ScriptWebView) throws -> String
    /// Opens a verification page in the headless browser until its challenge passed, keeping its cookies, and
    /// answers as Legado's `startBrowserAwait` does: the URL fetched again (`refetchAfterSuccess`) or the page.
    /// - Throws: when the page still waits for a person at its time limit (a captcha), naming the URL.
    func verify(_ page: ScriptVerification) throws -> ScriptResponse
}

extension ScriptHost {
    /// A host without a browser refuses webView pages.
    public func webView(_ page: ScriptWebView) throws -> String {
        throw ScriptWebViewUnavailable()
    }

    /// A host without a browser refuses verification pages.
    public func verify(_ page: ScriptVerification) throws -> ScriptResponse {
        throw ScriptVerificationUnavailable(helper: page.helper)
    }
}

/// What a host without a browser says to `java.webView`.
public struct ScriptWebViewUnavailable: Error, CustomStringConvertible {
    /// The refusal in words.
    public var description: String { "java.webView needs a browser, and this script host has none" }
}

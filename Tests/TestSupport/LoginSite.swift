import BookRuleHTTP
import BookRuleLocking
import Foundation

/// A generated book behind a login, on a loopback address of its own:
///
///     POST /login        user=alice&password=PASSWORD: 200 and a new `session` cookie; otherwise 403
///     POST /api/token    the same form: 200 `{"token": "…"}`, the token a page takes as `X-Token`
///     GET  /             the home page (`welcome` or the notice)
///     GET  /book/1/      book page and TOC of two chapters
///     GET  /book/1/N.html    (with `pictures`, the text holds `<img src='/pic/N.png'>`)
///     GET  /pic/N.png        a one-pixel PNG
///     GET  /search?key=K     a result list with the book
///
/// Pages answer 200 with "please log in" unless the request carries a live session cookie or the token.
/// `expireSessions()` ends every session, as a site does after a while.
package final class LoginSite: Sendable {
    package static let user = "alice"
    package static let password = "s3cret-Passw0rd-7Qx"
    package static let token = "TOKEN-9f8e7d6c5b4a"
    package static let notice = "please log in"

    /// How a source for the site logs in.
    package enum Login: Sendable {
        /// `loginUrl` is the URL of the form: bookrule posts the loginUi fields to it.
        case url
        /// `loginUrl` is JavaScript whose `login()` gets a token and keeps it with `putLoginHeader`.
        case script
        /// As `.url`, with a `loginCheckJs` that logs in again and fetches again when a page asks for a login.
        case urlWithCheck
        /// JavaScript whose `login()` posts the form with `java.post` and keeps the answer's cookies as a
        /// `Cookie` login header, in the two ways community sources write it: from the Java Map's `{a=1}` text,
        /// and by iterating its entries.
        case scriptCookieHeader
    }

    package let server: FaultServer
    private let state = Locked<(sessions: Set<String>, issued: Int, logins: Int)>(([], 0, 0))

    /// Starts the site on `host`; with `pictures`, each chapter shows a picture that also needs the login.
    package init(host: String = "127.0.0.1", maxRequests: Int = 200, pictures: Bool = false) throws {
        let state = self.state
        server = try FaultServer(host: host, lifetime: 120, maxRequests: maxRequests) { request, _ in
            let html = [HTTPHeader("Content-Type", "text/html; charset=utf-8")]
            let form = LoginSite.form(String(decoding: request.body, as: UTF8.self))
            let credentials = form["user"] == LoginSite.user && form["password"] == LoginSite.password
            switch (request.method, request.path) {
            case ("POST", "/login"):
                guard credentials else { return .status(403) }
                let session = state.withLock { state -> String in
                    state.issued += 1
                    state.logins += 1
                    let session = "sess-\(state.issued)"
                    state.sessions.insert(session)
                    return session
                }
                return .ok("<html><body>welcome</body></html>", headers: html + [HTTPHeader("Set-Cookie", "session=\(session); Path=/")])
            case ("POST", "/api/token"):
                guard credentials else { return .status(403) }
                state.withLock { $0.logins += 1 }
                return .ok("{\"token\": \"\(LoginSite.token)\"}", headers: [HTTPHeader("Content-Type", "application/json")])
            default:
                break
            }
            let cookie = LoginSite.cookies(request.header("Cookie") ?? "")["session"]
            let allowed = request.header("X-Token") == LoginSite.token
                || cookie.map { session in state.withLock { $0.sessions.contains(session) } } == true
            guard allowed else {
                return .ok("<html><body><p class='notice'>\(LoginSite.notice)</p></body></html>", headers: html)
            }
            switch request.path {
            case "/":
                return .ok("<html><body>welcome</body></html>", headers: html)
            case "/book/1/":
                return .ok("<html><body><h1>\(LoginSite.bookName)</h1><dl id='list'>"
                           + "<dd><a href='/book/1/1.html'>第1章</a></dd><dd><a href='/book/1/2.html'>第2章</a></dd>"
                           + "</dl></body></html>", headers: html)
            case "/book/1/1.html", "/book/1/2.html":
                let number = request.path.dropFirst(8).prefix(1)
                let text = LoginSite.text(Int(number) ?? 0)
                let content = pictures ? "<p>\(text)</p><p><img src='/pic/\(number).png'></p>" : text
                return .ok("<html><body><h1>第\(number)章</h1><div id='content'>\(content)</div></body></html>", headers: html)
            case "/pic/1.png", "/pic/2.png":
                return .reply(status: 200, headers: [HTTPHeader("Content-Type", "image/png")], body: LoginSite.onePixelPNG)
            case "/search":
                return .ok("<html><body><div class='book'><a href='/book/1/'>\(LoginSite.bookName)</a></div></body></html>", headers: html)
            default:
                return .status(404)
            }
        }
    }

    package static let bookName = "锁中之书"

    /// A whole PNG of one white pixel: what `/pic/N.png` answers.
    package static let onePixelPNG: [UInt8] = Array(Data(base64Encoded:
        "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8/5+hHgAHggJ/PchI7wAAAABJRU5ErkJggg==") ?? Data())

    /// The text of chapter `number`.
    package static func text(_ number: Int) -> String { "登录后可见的正文 \(number)" }

    /// `http://HOST:PORT`.
    package var baseURL: String { server.baseURL }

    /// Successful logins so far.
    package var logins: Int { state.withLock { $0.logins } }

    /// Ends every session: the cookies given so far stop working.
    package func expireSessions() {
        state.withLock { $0.sessions.removeAll() }
    }

    /// The source's JSON for a way of logging in.
    package func sourceJSON(_ login: Login) -> String {
        let fields = #""loginUi": "[{\"name\": \"user\", \"type\": \"text\"}, {\"name\": \"password\", \"type\": \"password\"}]","#
        let how: String
        switch login {
        case .url:
            how = #""loginUrl": "/login","#
        case .script:
            let script = "function login() { var info = source.getLoginInfoMap(); "
                + "var answer = java.post(source.getKey() + '/api/token', 'user=' + info.get('user') + '&password=' + info['password'], {}); "
                + "source.putLoginHeader(JSON.stringify({'X-Token': JSON.parse(answer.body()).token})); }"
            how = "\"loginUrl\": \"\(script)\","
        case .scriptCookieHeader:
            let script = "function login() { var info = source.getLoginInfoMap(); "
                + "var answer = java.post(source.getKey() + '/login', 'user=' + info.get('user') + '&password=' + info.get('password'), "
                + "{'Content-Type': 'application/x-www-form-urlencoded'}); "
                + "var fromText = String(answer.cookies()).match(/[{](.*?)[}]/)[1].replace(/,/g, ';'); "
                + "var fromEntries = Array.from(answer.cookies(), ([k, v]) => k + '=' + v).join(';'); "
                + "if (fromText !== fromEntries) throw new Error(fromText + ' != ' + fromEntries); "
                + "source.putLoginHeader(JSON.stringify({Cookie: fromText})); }"
            how = "\"loginUrl\": \"\(script)\","
        case .urlWithCheck:
            let check = "if (String(result.body()).indexOf('\(LoginSite.notice)') >= 0) { source.login(); java.initUrl(); "
                + "result = java.getStrResponse(); } result"
            how = "\"loginUrl\": \"/login\", \"loginCheckJs\": \"\(check)\","
        }
        return """
        {"bookSourceUrl": "\(baseURL)", "bookSourceName": "locked", \(how) \(fields)
         "searchUrl": "/search?key={{key}}",
         "ruleSearch": {"bookList": "//div[@class='book']", "name": "@XPath:./a/text()", "bookUrl": "@XPath:./a/@href"},
         "ruleBookInfo": {"name": "//h1/text()"},
         "ruleToc": {"chapterList": "//dl[@id='list']/dd/a", "chapterName": "/text()", "chapterUrl": "/@href"},
         "ruleContent": {"content": "//div[@id='content']"}}
        """
    }

    /// The source for `login`, written into `directory`; returns its path.
    package func sourceFile(_ login: Login, in directory: String) throws -> String {
        let path = directory + "/locked.json"
        try sourceJSON(login).write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    private static func form(_ body: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in body.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    private static func cookies(_ header: String) -> [String: String] {
        var cookies: [String: String] = [:]
        for pair in header.split(separator: ";") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
            if parts.count == 2 { cookies[parts[0]] = parts[1] }
        }
        return cookies
    }
}

import BookRuleHTTP
import BookRuleLocking
import Foundation

/// A loopback site that defends its text with what page scripts do (issue #31): a TOC page whose script sets
/// the cookie the chapter pages want (`gate=…`, computed by the script; a chapter without it is 403), a
/// JavaScript challenge (`/verify/`: "Just a moment...", a script that computes a token, sets `pass=…` and
/// reloads; with the cookie the real page), and a captcha that never passes (`/captcha/`). Every request is
/// logged with its Cookie and User-Agent.
package final class VerificationSite: Sendable {
    /// One request as the server saw it.
    package struct Hit: Sendable {
        package var target: String
        package var userAgent: String
        package var cookie: String
    }

    /// The chapters' titles, in order.
    package static let titles = ["第一章 关门", "第二章 守夜", "第三章 开门"]
    /// A chapter's text.
    package static func text(_ number: Int) -> String { "第\(number)章：门后的灯一直亮着。" }
    /// The cookie the TOC page's script sets (its value computed there the same way).
    package static let gate = "gate=" + String(31_337 * 7 % 10_007, radix: 16)
    /// The cookie the challenge's script sets.
    package static let pass = "pass=" + String((4_242 * 4_243) % 65_521, radix: 16)
    /// The text the challenge's real page holds.
    package static let verifiedText = "验证已通过，正文在此。"

    /// The server.
    package let server: LoopbackServer
    private let log = Locked<[Hit]>([])

    /// Every request served, in order.
    package var hits: [Hit] { log.withLock { $0 } }
    /// `http://127.0.0.1:PORT`.
    package var base: String { "http://127.0.0.1:\(server.port)" }

    /// A site serving at most `maxRequests` requests.
    package init(maxRequests: Int = 120) throws {
        let log = self.log
        server = try LoopbackServer(maxConnections: maxRequests, lifetime: 180) { request, _, writer in
            writer.write(Self.answer(request))
            log.withLock {
                $0.append(Hit(target: request.target, userAgent: request.headers.value(for: "User-Agent") ?? "",
                              cookie: request.headers.value(for: "Cookie") ?? ""))
            }
        }
    }

    private static func html(_ body: String, status: Int = 200) -> [UInt8] {
        LoopbackServer.reply(status, status == 200 ? "OK" : "Forbidden", headers: [("Content-Type", "text/html; charset=utf-8")],
                             body: Array(body.utf8))
    }

    private static func answer(_ request: WireRequest) -> [UInt8] {
        let target = request.target
        let cookie = request.headers.value(for: "Cookie") ?? ""
        let cookies = Set(cookie.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) })
        switch target {
        case "/book/1/":
            return html("<html><body><h1>守门人</h1><p class=\"author\">夜灯</p><a id=\"toc\" href=\"toc.html\">目录</a></body></html>")
        case "/book/1/toc.html":
            // The list is built by the script, which also sets the cookie every chapter wants.
            let items = titles.enumerated().map { "['\($0.element)', '/chapter/\($0.offset + 1).html']" }.joined(separator: ", ")
            return html("""
            <html><body><ul id="list"></ul><script>
            document.cookie = 'gate=' + (31337 * 7 % 10007).toString(16) + '; path=/';
            for (const [title, url] of [\(items)]) {
              const a = document.createElement('a'); a.href = url; a.textContent = title;
              const li = document.createElement('li'); li.appendChild(a); document.getElementById('list').appendChild(li);
            }
            </script></body></html>
            """)
        case "/verify/page.html":
            guard cookies.contains(pass) else {
                return html("""
                <html><head><title>Just a moment...</title></head><body><p>Checking your browser…</p><script>
                const token = ((4242 * 4243) % 65521).toString(16);
                document.cookie = 'pass=' + token + '; path=/';
                setTimeout(() => location.reload(), 300);
                </script></body></html>
                """, status: 403)
            }
            return html("<html><head><title>正文</title></head><body><div id=\"text\">\(verifiedText)</div></body></html>")
        case "/captcha/page.html":
            return html("""
            <html><head><title>安全验证</title></head><body><div class="g-recaptcha" data-sitekey="x"></div>
            <script>document.cookie = 'seen=1; path=/';</script></body></html>
            """, status: 403)
        default:
            break
        }
        if target.hasPrefix("/chapter/"), target.hasSuffix(".html"), let number = Int(target.dropFirst(9).dropLast(5)),
           (1...titles.count).contains(number) {
            guard cookies.contains(gate) else { return html("<html><body>403: no gate cookie</body></html>", status: 403) }
            return html("<html><body><h2>\(titles[number - 1])</h2><div id=\"content\">\(text(number))</div></body></html>")
        }
        return LoopbackServer.reply(404, "Not Found", body: Array("not found".utf8))
    }

    /// The source: the TOC is a webView page (its script sets the cookie), the chapters are fetched plainly;
    /// `content` is `ruleContent.content` as JSON text (default: the chapter's `<div id="content">`).
    package func cookieSourceJSON(content: String = #""//div[@id='content']""#) -> String {
        """
        {
          "bookSourceName": "脚本设的 cookie", "bookSourceUrl": "\(base)", "bookSourceType": 0,
          "ruleBookInfo": {"name": "//h1/text()", "author": "//p[@class='author']/text()",
                           "tocUrl": "//a[@id='toc']/@href@js:result + ',{\\"webView\\": true}'"},
          "ruleToc": {"chapterList": "//ul[@id='list']/li", "chapterName": "//a/text()", "chapterUrl": "//a/@href"},
          "ruleContent": {"content": \(content)}
        }
        """
    }

    /// The same source with a content rule that passes the page at `path` with `call` (a JavaScript expression
    /// giving the page's markup, `PAGE` standing for the page's URL), then reads `<div id="text">` from it.
    package func verificationSourceJSON(_ call: String, path: String = "/verify/page.html") -> String {
        let expression = call.replacingOccurrences(of: "PAGE", with: "'\(base)\(path)'")
        let script = "@js: var answer = \(expression); var m = String(answer).match(/<div id=\"text\">([^<]*)</); m ? m[1] : 'no text in: ' + answer"
        let quoted = "\"" + script.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
        return cookieSourceJSON(content: quoted)
    }
}

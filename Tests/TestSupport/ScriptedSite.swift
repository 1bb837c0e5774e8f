import BookRuleHTTP
import BookRuleLocking
import Foundation

/// A loopback site that only a browser can read: the TOC exists only after the page's script fetches JSON
/// and builds the list, and a chapter's text comes from an API that wants a cookie the page's script sets
/// and a token the script computes. Every request is logged with its arrival and end, for the pacing checks
/// (issue #25's acceptance site; read by `BookRuleBrowserTests` and the CLI's tests).
package final class ScriptedSite: Sendable {
    /// One request as the server saw it: its target, User-Agent and Cookie, when it arrived and was answered.
    package struct Hit: Sendable {
        package var target: String
        package var userAgent: String
        package var cookie: String
        package var start: ContinuousClock.Instant
        package var end: ContinuousClock.Instant
    }

    /// The chapters' titles, in order.
    package static let titles = ["第一章 灯下", "第二章 夜雨", "第三章 归舟"]

    /// The chapter's text, as the API gives it.
    package static func text(_ number: Int) -> String { "第\(number)章的正文：灯火照着夜雨，舟归了。" }

    /// The token the chapter page's script computes, computed here the same way.
    package static func token(_ number: Int) -> String { String((number * 7919 + 104_729) % 65_521, radix: 16) }

    /// The server.
    package let server: LoopbackServer
    private let log = Locked<[Hit]>([])

    /// Every request served, in order.
    package var hits: [Hit] { log.withLock { $0 } }
    /// `http://127.0.0.1:PORT`.
    package var base: String { "http://127.0.0.1:\(server.port)" }

    /// A site serving at most `maxRequests` requests.
    package init(maxRequests: Int = 60) throws {
        let log = self.log
        server = try LoopbackServer(maxConnections: maxRequests, lifetime: 120) { request, _, writer in
            let start = ContinuousClock.now
            writer.write(Self.answer(request))
            log.withLock {
                $0.append(Hit(target: request.target, userAgent: request.headers.value(for: "User-Agent") ?? "",
                              cookie: request.headers.value(for: "Cookie") ?? "", start: start, end: ContinuousClock.now))
            }
        }
    }

    private static func html(_ body: String) -> [UInt8] {
        LoopbackServer.reply(200, "OK", headers: [("Content-Type", "text/html; charset=utf-8")], body: Array(body.utf8))
    }

    private static func answer(_ request: WireRequest) -> [UInt8] {
        let target = request.target
        if target == "/book/1/" {
            return html("<html><body><h1>夜雨归舟</h1><p class=\"author\">灯下客</p><a id=\"toc\" href=\"toc.html\">目录</a></body></html>")
        }
        if target == "/book/1/toc.html" {
            return html("""
            <html><body><ul id="list"></ul><script>
            fetch('toc.json').then(r => r.json()).then(items => {
              const list = document.getElementById('list');
              for (const item of items) {
                const a = document.createElement('a'); a.href = item.url; a.textContent = item.title;
                const li = document.createElement('li'); li.appendChild(a); list.appendChild(li);
              }
            });
            </script></body></html>
            """)
        }
        if target == "/book/1/toc.json" {
            let items = titles.enumerated().map { "{\"title\": \"\($0.element)\", \"url\": \"\($0.offset + 1).html\"}" }
            return LoopbackServer.reply(200, "OK", headers: [("Content-Type", "application/json")],
                                        body: Array("[\(items.joined(separator: ","))]".utf8))
        }
        if target.hasPrefix("/book/1/"), target.hasSuffix(".html"), let number = Int(target.dropFirst(8).dropLast(5)) {
            return html("""
            <html><body><h2>\(titles[max(0, min(titles.count - 1, number - 1))])</h2><div id="content"></div><script>
            document.cookie = 'reader=yes; path=/';
            const token = ((\(number) * 7919 + 104729) % 65521).toString(16);
            fetch('/api/text?c=\(number)&token=' + token).then(r => r.text()).then(text => {
              document.getElementById('content').textContent = text;
            });
            </script></body></html>
            """)
        }
        if target.hasPrefix("/api/text?"), let query = target.split(separator: "?").last {
            var fields: [String: String] = [:]
            for pair in query.split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            let cookie = request.headers.value(for: "Cookie") ?? ""
            guard let number = fields["c"].flatMap(Int.init), fields["token"] == token(number),
                  cookie.contains("reader=yes") else {
                return LoopbackServer.reply(403, "Forbidden", body: Array("no cookie or bad token".utf8))
            }
            return LoopbackServer.reply(200, "OK", headers: [("Content-Type", "text/plain; charset=utf-8")],
                                        body: Array(text(number).utf8))
        }
        return LoopbackServer.reply(404, "Not Found", body: Array("not found".utf8))
    }

    /// The book source that reads the site through a browser: the TOC and every chapter are webView pages.
    package func sourceJSON() -> String {
        """
        {
          "bookSourceName": "webView 测试站", "bookSourceUrl": "\(base)", "bookSourceType": 0,
          "ruleBookInfo": {"name": "//h1/text()", "author": "//p[@class='author']/text()",
                           "tocUrl": "//a[@id='toc']/@href@js:result + ',{\\"webView\\": true}'"},
          "ruleToc": {"chapterList": "//ul[@id='list']/li", "chapterName": "//a/text()",
                      "chapterUrl": "//a/@href@js:result + ',{\\"webView\\": true}'"},
          "ruleContent": {"content": "//div[@id='content']"}
        }
        """
    }
}

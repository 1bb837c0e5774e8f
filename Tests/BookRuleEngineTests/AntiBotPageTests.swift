import Foundation
import Testing
import TestSupport
@testable import BookRuleEngine

/// `<repo>/../shared/corpus/pages`, found from this file.
private let corpusPages: String = URL(fileURLWithPath: #filePath)
    .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    .appendingPathComponent("../shared/corpus/pages").standardized.path

@Suite("Anti-bot pages are named, real pages are not")
struct AntiBotPageTests {
    @Test("Cloudflare challenge, block, error code, script stub and captcha pages are recognised")
    func recognised() {
        let challenge = "<html><head><title>Just a moment...</title></head><body><div id='cf-wrapper'>x</div></body></html>"
        #expect(AntiBotPage.detect(html: challenge, status: 503)?.kind == .challenge)
        let attention = "<title>Attention Required! | Cloudflare</title><p>Sorry, you have been blocked</p>"
        #expect(AntiBotPage.detect(html: attention, status: 403)?.kind == .accessDenied)
        let denied = "<html><head><title>Access denied</title></head><body>You don't have permission.</body></html>"
        #expect(AntiBotPage.detect(html: denied, status: 403)?.kind == .accessDenied)
        let code = "<div class='cf-error-details'><h1>Error 1020</h1> Access denied</div>"
        #expect(AntiBotPage.detect(html: code, status: 403)?.kind == .accessDenied)
        let stub = "<html><script>window.location='https://x.test/real/?t=' + Date.now();</script></html>"
        #expect(AntiBotPage.detect(html: stub, status: 200)?.kind == .scriptRedirect)
        let captcha = "<html><title>验证</title><form><div class='g-recaptcha' data-sitekey='k'></div></form></html>"
        #expect(AntiBotPage.detect(html: captcha, status: 200)?.kind == .captcha)
        let description = AntiBotPage.detect(html: challenge, status: 503)?.description ?? ""
        #expect(description.contains("anti-bot challenge page (\"just a moment...\")"))
    }

    @Test("a short real page whose script opens its TOC (the allinone example's book page) is not a stub")
    func shortBookPage() {
        let page = "<html><body><h1>霜星夜航</h1><p>作者：<a href='/a/1'>北岸</a></p><p><a href='/'>首页</a></p>"
            + "<script>function toc(){ location.href='/toc.php?bid=7'; }</script></body></html>"
        #expect(AntiBotPage.detect(html: page, status: 200) == nil)
        let beacon = "<html><body><h1>Book</h1><p>" + String(repeating: "text ", count: 120) + "</p>"
            + "<script src='/cdn-cgi/challenge-platform/scripts/jsd/main.js'></script></body></html>"
        #expect(AntiBotPage.detect(html: beacon, status: 200) == nil)
    }

    @Test("a long page that sets window.location in a footer, or mentions a captcha, is not one")
    func longPagesAreNotStubs() {
        let text = String(repeating: "第一章 正文内容。", count: 200)
        let page = "<html><body><div id='content'>\(text)</div><script>if (x) window.location.href='/m/';</script>"
            + "<p>请勿使用 captcha 破解</p></body></html>"
        #expect(AntiBotPage.detect(html: page, status: 200) == nil)
    }

    @Test("the corpus's Cloudflare page is a challenge and none of its other real pages is an anti-bot page",
          .enabled(if: FileManager.default.fileExists(atPath: corpusPages + "/MANIFEST.json"), "the shared corpus is not beside this checkout"))
    func corpus() async throws {
        try await offCooperativePool { try Self.checkCorpus() }
    }

    static func checkCorpus() throws {
        let manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: corpusPages + "/MANIFEST.json")))
        let pages = try #require((manifest as? [String: Any])?["pages"] as? [[String: Any]])
        var checked = 0
        for page in pages {
            let path = try #require(page["local_path"] as? String)
            let bytes = try Data(contentsOf: URL(fileURLWithPath: corpusPages + "/" + path))
            let found = AntiBotPage.detect(html: String(decoding: bytes, as: UTF8.self), status: 200)
            if path.hasSuffix("novelhall.html") {
                #expect(found?.kind == .challenge, "\(path)")
            } else {
                #expect(found == nil, "\(path): \(String(describing: found))")
            }
            checked += 1
        }
        #expect(checked >= 40)
    }
}

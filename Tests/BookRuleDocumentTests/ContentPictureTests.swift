import Testing
@testable import BookRuleDocument

/// Pictures in chapter content: `HTMLTextFormatter.contentText` keeps each `<img>` as an `ImageLine`.
@Suite("Pictures in chapter content")
struct ContentPictureTests {
    static let page = "https://site.test/book/7/12.html"

    func content(_ markup: String, base: String = page) -> String {
        HTMLTextFormatter.contentText(fromMarkup: markup, baseURL: base)
    }

    @Test("an <img> is a line of its own, between the paragraphs around it, with an absolute URL")
    func imageInParagraph() {
        let text = content("<p>第一段<img src='/pic/a.png'>第二段</p><p>第三段</p>")
        #expect(text == "第一段\n<img src=\"https://site.test/pic/a.png\">\n第二段\n第三段")
        // Other fields keep the old reading: the picture is dropped.
        #expect(HTMLTextFormatter.text(fromMarkup: "<p>第一段<img src='/pic/a.png'>第二段</p>") == "第一段第二段")
        #expect(HTMLTextFormatter.singleLine("第一章<img src='/pic/a.png'>出发") == "第一章出发")
        #expect(HTMLTextFormatter.titleLine("第一章 <img src='x.png'>") == "第一章")
    }

    @Test("relative, root-relative, protocol-relative and absolute addresses resolve against the page")
    func resolution() {
        let text = content("""
            <img src="b.jpg"><img src="../c.gif"><img src="//cdn.test/d.png"><img src="http://other.test/e.png">
            """)
        #expect(ImageLine.all(in: text).map(\.url) == [
            "https://site.test/book/7/b.jpg", "https://site.test/book/c.gif", "https://cdn.test/d.png",
            "http://other.test/e.png",
        ])
    }

    @Test("lazy-loading attributes come before src, whatever their order; data: URIs and empty values are skipped")
    func lazyLoading() {
        let text = content("""
            <img src="/loading.gif" data-src="/real/1.jpg">
            <img data-original="/real/2.jpg" src="data:image/gif;base64,R0lGOD">
            <img src="data:image/png;base64,iVBOR">
            <img src="" data-url="/real/3.jpg" data-width="300">
            <img src="  /real/4.jpg  " data-src="">
            """)
        #expect(ImageLine.all(in: text).map(\.url) == [
            "https://site.test/real/1.jpg", "https://site.test/real/2.jpg", "https://site.test/real/3.jpg",
            "https://site.test/real/4.jpg",
        ])
    }

    @Test("several pictures stay in order, repeats included; a picture-only chapter is not empty")
    func onlyPictures() {
        let text = content("<div><p><img src='1.png'></p><p><img src='2.png'><img src='1.png'></p></div>")
        #expect(text.split(separator: "\n").count == 3)
        #expect(ImageLine.all(in: text).map(\.url) == [
            "https://site.test/book/7/1.png", "https://site.test/book/7/2.png", "https://site.test/book/7/1.png",
        ])
    }

    @Test("<base href> is what pictures resolve against, as links do")
    func baseHref() throws {
        let bytes = Array("""
            <html><head><base href="https://img.test/books/"></head>
            <body><div id="c">文字<img src="p/1.jpg"></div></body></html>
            """.utf8)
        let document = try HTMLDocument(bytes: bytes, url: Self.page)
        #expect(HTMLTextFormatter.contentText(of: document.root) == "文字\n<img src=\"https://img.test/books/p/1.jpg\">")
        #expect(HTMLTextFormatter.text(of: document.root) == "文字")
    }

    @Test("Legado's ,{options} stay after the resolved URL, also as libxml2 serialises them (%7B…)")
    func options() throws {
        let text = content(#"<img src='/a.jpg,{"headers":{"Referer":"https://site.test/"}}'>"#)
        let line = try #require(ImageLine.all(in: text).first)
        #expect(line.url == "https://site.test/a.jpg")
        #expect(line.options == #",{"headers":{"Referer":"https://site.test/"}}"#)
        let serialised = content("<img src=\"/a.jpg,%7B%22headers%22:%7B%7D%7D\">")
        #expect(ImageLine.all(in: serialised).first?.options == #",{"headers":{}}"#)
    }

    @Test("images in scripts, noscript and templates are not pictures; an <img> with no usable address is dropped")
    func skipped() {
        let text = content("""
            <noscript><img src="/n.jpg"></noscript><img alt="none"><img src="javascript:void(0)">正文
            """)
        #expect(text == "正文")
    }

    @Test("an image line reads back exactly; other lines are text; quotes and spaces in a URL are encoded")
    func imageLineRoundTrip() {
        let line = ImageLine(url: "https://site.test/a b\"c<d>.png")
        #expect(line.line == "<img src=\"https://site.test/a%20b%22c%3Cd%3E.png\">")
        #expect(ImageLine(line: line.line)?.url == "https://site.test/a%20b%22c%3Cd%3E.png")
        #expect(ImageLine(line: "\u{3000}\u{3000}" + line.line + " ") != nil)
        #expect(ImageLine(line: "看图 <img src=\"https://x.test/a.png\">") == nil)
        #expect(ImageLine(line: "<img src=\"\">") == nil)
        #expect(ImageLine.all(in: "a\n<img src=\"https://x.test/1.png\">\nb").map(\.url) == ["https://x.test/1.png"])
    }
}

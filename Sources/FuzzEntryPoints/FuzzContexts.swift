import BookRule

/// The small fixed page, element, JSON value and text rules are evaluated on: enough structure (lists,
/// attributes, nested elements, CJK text, a script) for selectors and paths to find something.
enum FuzzContexts {
    static let baseURL = "https://www.example.com/book/1/"

    static let page = """
        <html><head><meta charset="utf-8"><title>第一章 开始</title><script>var x = {"a": 1};</script></head>
        <body><div id="info" class="book main"><h1>长夜灯火</h1><p class="author">作者：<a href="/author/7">某人</a></p>
        <img src="cover.jpg" data-src="//img.example.com/c.png"></div>
        <ul class="list"><li><a href="1.html" title="one">第一章</a></li><li><a href="2.html">第二章</a></li>
        <li class="vip"><a href="https://www.example.com/book/1/3.html">第三章 <b>VIP</b></a></li></ul>
        <div id="content">　　第一段。<br>　　第二段&nbsp;有&lt;标记&gt;。<br/><p>第三段</p><!-- 注释 --></div>
        <table><tr><td>a</td><td>b</td></tr></table><form action="/search"><input name="q" value="k"></form>
        </body></html>
        """

    static let document: HTMLDocument? = try? HTMLDocument(
        bytes: Array(page.utf8), url: baseURL, charset: CharsetDecision(charset: "UTF-8", reason: .validUTF8))

    static let jsonText = """
        {"code":0,"data":{"list":[{"name":"长夜","author":"某人","url":"/book/1","tags":["a","b"],"n":1.5},
        {"name":"灯火","author":null,"url":"https://x.example/2","tags":[],"n":-2}],"total":2,"ok":true},
        "html":"<p>段落</p>"}
        """

    static let json: JSONValue = (try? JSONParser.parse(jsonText))?.value ?? .null

    static let text = "第一章 开始\n　　第一段。\n<p>第二段</p> https://www.example.com/book/1/2.html 12345"

    /// Context `index % 5`: the page, its `ul` element, the JSON value, the text, or JSON given as text.
    static func context(_ index: UInt8) -> RuleContext {
        switch index % 5 {
        case 0: return document?.rootContext ?? .text(page)
        case 1:
            if let document, let list = try? RuleParser.parse("class.list@tag.li", field: "fuzz", kind: .list)
                .elements(in: document.rootContext, environment: RuleEnvironment(baseURL: baseURL)).first {
                return list
            }
            return .text(page)
        case 2: return .json(json)
        case 3: return .text(text)
        default: return .text(jsonText)
        }
    }
}

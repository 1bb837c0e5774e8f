import BookRuleDocument
import Testing
@testable import BookRuleStudio

@Suite("Studio: the frame's page is written from an allow-list over the parsed tree")
struct SanitizedPageTests {
    /// Known mutation-XSS shapes: markup that one parser reads as text (or an attribute) and another, after a
    /// re-serialization, as live elements: foreign content, raw-text and RCDATA elements, comment and CDATA
    /// tricks, `</` inside attributes, nested forms, templates, script URLs.
    static let mutationShapes = [
        "<svg><style><img src=x onerror=alert(1)></style></svg>",
        "<math><style><img src=x onerror=alert(1)></style></math>",
        "<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>",
        "<svg></p><style><a id=\"</style><img src=1 onerror=alert(1)>\">",
        "<form><math><mtext></form><form><mglyph><style></math><img src onerror=alert(1)>",
        "<noscript><p title=\"</noscript><img src=x onerror=alert(1)>\"></noscript>",
        "<textarea><img src=x onerror=alert(1)></textarea>",
        "<textarea></textarea ><img src=x onerror=alert(1)></textarea>",
        "<title><img src=x onerror=alert(1)></title>",
        "<style></style ><img src=x onerror=alert(1)>",
        "<style><!--</style><img src=x onerror=alert(1)>--></style>",
        "<!--><img src=x onerror=alert(1)>-->",
        "<!-- --!><img src=x onerror=alert(1)> -->",
        "<div id=\"x\"><![CDATA[</div><img src=x onerror=alert(1)>]]></div>",
        "<a title=\"</a><img src=x onerror=alert(1)>\">link</a>",
        "<p class=\"a\" title=\"</p><svg onload=alert(1)>\">x</p>",
        "<template><img src=x onerror=alert(1)></template>",
        "<xmp><img src=x onerror=alert(1)></xmp>",
        "<noembed><img src=x onerror=alert(1)></noembed>",
        "<noframes><img src=x onerror=alert(1)></noframes>",
        "<iframe srcdoc=\"<img src=x onerror=alert(1)>\"></iframe>",
        "<plaintext><img src=x onerror=alert(1)>",
        "<select><style></select><img src=x onerror=alert(1)></style></select>",
        "<table><td><style></table><img src=x onerror=alert(1)></style>",
        "<image src=x onerror=alert(1)>",
        "<img src=\"x` `<script>alert(1)</script>\"` `>",
        "<a href=\"jav&#x09;ascript:alert(1)\">x</a><a href=\" JaVaScRiPt:alert(1)\">y</a>",
        "<svg><a xlink:href=\"javascript:alert(1)\"><text x=\"20\" y=\"20\">x</text></a></svg>",
        "<object data=\"javascript:alert(1)\"></object><embed src=\"javascript:alert(1)\">",
        "<isindex action=javascript:alert(1) type=image>",
        "<form><form action=\"javascript:alert(1)\"><input formaction=\"javascript:alert(1)\" autofocus onfocus=alert(1)></form></form>",
        "<div style=\"x\" data-br=\"7\" data-br-match onclick=alert(1) on\u{0}load=alert(1)>x</div>",
        "<scr<script>ipt>alert(1)</script>",
        "<meta http-equiv=\"refresh\" content=\"0;url=javascript:alert(1)\"><base href=\"javascript:alert(1)//\">",
        "<details open ontoggle=alert(1)><summary>s</summary></details>",
        "<custom-element is=\"x\" onclick=alert(1)><b>kept</b></custom-element>",
    ]

    static func sanitized(_ html: String) throws -> SanitizedPage {
        SanitizedPage(document: try HTMLDocument(bytes: Array(html.utf8), url: "https://www.example.com/", contentType: "text/html; charset=utf-8"))
    }

    /// Every element of `node`'s subtree.
    static func elements(below node: HTMLNode) -> [HTMLNode] {
        node.elementChildren.flatMap { [$0] + elements(below: $0) }
    }

    @Test("Known mutation-XSS shapes come out with only allow-listed elements and attributes, tokenized and re-parsed",
          arguments: mutationShapes)
    func mutationShapesStayInert(_ shape: String) throws {
        let page = try Self.sanitized("<html><body><p>before</p>" + shape + "<p>after</p></body></html>")
        let html = String(decoding: page.html, as: UTF8.self)
        #expect(SanitizedPage.strayMarkup(in: page.html) == nil, "\(html)")
        // Read again by libxml2: no element or attribute outside the allow-list.
        let reparsed = try HTMLDocument(bytes: page.html, url: "https://www.example.com/")
        for element in Self.elements(below: reparsed.root) {
            #expect(SanitizedPage.elements.contains(element.name) || ["meta", "link"].contains(element.name), "<\(element.name)> in \(html)")
            for (name, value) in element.attributes {
                #expect(!name.hasPrefix("on"), "\(name) in \(html)")
                #expect(!value.lowercased().contains("javascript:"), "\(name)=\(value) in \(html)")
            }
        }
    }

    @Test("The output's only markup is allow-listed tags: the invariant check flags foreign content and markup in a style")
    func invariantCheckFlagsStrayMarkup() {
        #expect(SanitizedPage.strayMarkup(in: Array("<!DOCTYPE html><p data-br=\"0\">x &lt; y</p>".utf8)) == nil)
        #expect(SanitizedPage.strayMarkup(in: Array("<svg data-br=\"0\"></svg>".utf8)) != nil)
        #expect(SanitizedPage.strayMarkup(in: Array("<style data-br=\"0\"><img src=x></style>".utf8)) != nil)
        #expect(SanitizedPage.strayMarkup(in: Array("<p onclick=\"x\" data-br=\"0\"></p>".utf8)) != nil)
        #expect(SanitizedPage.strayMarkup(in: Array("<p title=x data-br=\"0\"></p>".utf8)) != nil)
    }

    @Test("A stylesheet keeps its rules but no < survives inside it")
    func styleHasNoMarkup() throws {
        let page = try Self.sanitized("<html><head><style>p > b { color: red } /* </style><img src=x> */</style></head><body><p>x</p></body></html>")
        let html = String(decoding: page.html, as: UTF8.self)
        #expect(html.contains("p > b { color: red }"))
        let style = try #require(html.range(of: "<style").map { html[$0.lowerBound...] })
        let body = try #require(style.range(of: "</style>").map { style[..<$0.lowerBound] })
        #expect(!body.dropFirst().contains("<"), "\(body)")
    }

    @Test("No text is lost at a <wbr> or after an unclosed <embed>, <param> or <source>")
    func voidElementsKeepTheTextAfterThem() throws {
        let page = try Self.sanitized("<html><body><p id=\"w\">long<wbr>word</p><div id=\"e\">a<embed src=\"x.swf\">after embed</div>"
            + "<p>b<param name=\"x\">after param</p><p>c<source src=\"y\">after source</p><p>last</p></body></html>")
        let reparsed = try HTMLDocument(bytes: page.html, url: "https://www.example.com/")
        let text = reparsed.root.stringValue
        for expected in ["longword", "after embed", "after param", "after source", "last"] {
            #expect(text.contains(expected), "\(expected) missing from \(text)")
        }
        #expect(String(decoding: page.html, as: UTF8.self).contains("long<wbr data-br="))
    }

    @Test("Foreign and unknown elements are flattened to their text; scripts and templates are dropped with their content")
    func foreignContentIsFlattened() throws {
        let page = try Self.sanitized("<html><body><svg><text>in svg</text></svg><math><mi>x</mi></math><my-card><b>card</b></my-card>"
            + "<script>secret()</script><template><p>hidden</p></template></body></html>")
        let html = String(decoding: page.html, as: UTF8.self)
        for kept in ["in svgx", "<b data-br=", "card"] { #expect(html.contains(kept), "\(kept): \(html)") }
        for dropped in ["<svg", "<math", "<my-card", "secret", "hidden"] { #expect(!html.contains(dropped), "\(dropped): \(html)") }
    }
}

import CLibXML2

/// jsoup 1.15's `Element.text()` and `Element.ownText()` over libxml2's tree, for `br:text` and `br:own-text`
/// (the text `:matches` and `:matchesOwn` search): text nodes with whitespace normalised
/// (`StringUtil.appendNormalisedWhitespace`), a space before a block element or `<br>` and after a block
/// element followed by text, script and style contents left out (jsoup's data nodes), whitespace kept inside
/// `pre`, `plaintext`, `title` and `textarea`, and the result trimmed as Java's `String.trim()`.
enum JsoupText {
    /// jsoup 1.15.3 `Tag.blockTags` (checked with `Tag.valueOf(name).isBlock()`); other and unknown tags are inline.
    static let blockTags: Set<String> = [
        "html", "head", "body", "frameset", "script", "noscript", "style", "meta", "link", "title", "frame",
        "noframes", "section", "nav", "aside", "hgroup", "header", "footer", "p", "h1", "h2", "h3", "h4", "h5", "h6",
        "ul", "ol", "pre", "div", "blockquote", "hr", "address", "figure", "figcaption", "form", "fieldset", "ins",
        "del", "dl", "dt", "dd", "li", "table", "caption", "thead", "tfoot", "tbody", "colgroup", "col", "tr", "th",
        "td", "video", "audio", "canvas", "details", "menu", "plaintext", "template", "article", "main", "svg",
        "math", "center", "dir", "applet", "marquee", "listing",
    ]
    /// `Tag.preserveWhitespace()`.
    static let preservingTags: Set<String> = ["pre", "plaintext", "title", "textarea"]

    /// `Element.text()` of `root` (an element or the document).
    static func text(of root: xmlNodePtr) -> String {
        var builder = Builder()
        var node = root
        walk: while true {
            // head
            if isText(node) {
                builder.append(node)
            } else if node.pointee.type == XML_ELEMENT_NODE {
                let name = HTMLNode.name(of: node)
                if !builder.isEmpty && (blockTags.contains(name) || name == "br") && !builder.endsWithSpace {
                    builder.scalars.append(" ")
                }
            }
            if node.pointee.type == XML_ELEMENT_NODE || node == root, let child = node.pointee.children {
                node = child
                continue
            }
            while true {
                // tail
                if node.pointee.type == XML_ELEMENT_NODE, blockTags.contains(HTMLNode.name(of: node)),
                   let next = node.pointee.next, isText(next), !builder.endsWithSpace {
                    builder.scalars.append(" ")
                }
                if node == root { break walk }
                if let next = node.pointee.next {
                    node = next
                    break
                }
                guard let parent = node.pointee.parent else { break walk }
                node = parent
            }
        }
        return builder.trimmed
    }

    /// `Element.ownText()` of `element`: its own text nodes, a child `<br>` as a space.
    static func ownText(of element: xmlNodePtr) -> String {
        var builder = Builder()
        var child = element.pointee.children
        while let node = child {
            if isText(node) {
                builder.append(node)
            } else if node.pointee.type == XML_ELEMENT_NODE, HTMLNode.name(of: node) == "br", !builder.endsWithSpace {
                builder.scalars.append(" ")
            }
            child = node.pointee.next
        }
        return builder.trimmed
    }

    /// A jsoup `TextNode`: a text or CDATA node that is not the content of a script or style (jsoup's
    /// `DataNode`s, never text).
    private static func isText(_ node: xmlNodePtr) -> Bool {
        guard node.pointee.type == XML_TEXT_NODE || node.pointee.type == XML_CDATA_SECTION_NODE else { return false }
        guard let parent = node.pointee.parent, parent.pointee.type == XML_ELEMENT_NODE else { return true }
        let name = HTMLNode.name(of: parent)
        return name != "script" && name != "style"
    }

    /// jsoup's `Element.preserveWhitespace`: the parent or one of its next five ancestors keeps whitespace.
    private static func preservesWhitespace(_ textNode: xmlNodePtr) -> Bool {
        var element = textNode.pointee.parent
        var level = 0
        while let current = element, current.pointee.type == XML_ELEMENT_NODE, level < 6 {
            if preservingTags.contains(HTMLNode.name(of: current)) { return true }
            element = current.pointee.parent
            level += 1
        }
        return false
    }

    private struct Builder {
        var scalars = String.UnicodeScalarView()

        var isEmpty: Bool { scalars.isEmpty }
        /// `TextNode.lastCharIsWhitespace`: the last character is a space.
        var endsWithSpace: Bool { scalars.last == " " }

        /// `appendNormalisedText`.
        mutating func append(_ node: xmlNodePtr) {
            guard let content = node.pointee.content else { return }
            let text = String(cString: content)
            if JsoupText.preservesWhitespace(node) {
                scalars.append(contentsOf: text.unicodeScalars)
                return
            }
            // `StringUtil.appendNormalisedWhitespace(accum, text, stripLeading: lastCharIsWhitespace(accum))`.
            let stripLeading = endsWithSpace
            var lastWasWhite = false
            var reachedNonWhite = false
            for scalar in text.unicodeScalars {
                switch scalar {
                case " ", "\t", "\n", "\u{0C}", "\r", "\u{A0}":
                    if (stripLeading && !reachedNonWhite) || lastWasWhite { continue }
                    scalars.append(" ")
                    lastWasWhite = true
                case "\u{200B}", "\u{AD}":
                    continue
                default:
                    scalars.append(scalar)
                    lastWasWhite = false
                    reachedNonWhite = true
                }
            }
        }

        /// Java's `String.trim()`: characters up to U+0020 removed from both ends.
        var trimmed: String {
            var view = Substring(String(scalars)).unicodeScalars
            while let first = view.first, first.value <= 0x20 { view.removeFirst() }
            while let last = view.last, last.value <= 0x20 { view.removeLast() }
            return String(view)
        }
    }
}

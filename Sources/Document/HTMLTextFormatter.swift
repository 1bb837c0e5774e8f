import CLibXML2

/// Turns markup into the plain text a reader sees: block elements and `<br>` become line breaks, other tags
/// are dropped, scripts and styles removed, entities decoded, runs of spaces collapsed, and every paragraph
/// trimmed of ASCII space, NO-BREAK SPACE, IDEOGRAPHIC SPACE and EN/EM SPACE (U+2000–U+200A). Empty paragraphs
/// are dropped.
public enum HTMLTextFormatter {
    /// Elements whose content is never text for a reader.
    static let skipped: Set<String> = [
        "script", "style", "noscript", "template", "iframe", "object", "embed", "head", "select", "svg", "canvas",
    ]
    /// Elements that start and end a line.
    static let blocks: Set<String> = [
        "address", "article", "aside", "blockquote", "body", "caption", "center", "dd", "details", "dialog", "dir",
        "div", "dl", "dt", "fieldset", "figcaption", "figure", "footer", "form", "h1", "h2", "h3", "h4", "h5", "h6",
        "header", "hr", "html", "legend", "li", "main", "menu", "nav", "ol", "p", "pre", "section", "summary",
        "table", "tbody", "td", "tfoot", "th", "thead", "tr", "ul",
    ]

    /// The text of a node and everything under it, as paragraphs joined by "\n".
    public static func text(of node: HTMLNode) -> String {
        let root = node.pointer
        // Fast path: an element holding one text node (a link, a title) needs no tree walk.
        if let only = root.pointee.children, only.pointee.next == nil,
           only.pointee.type == XML_TEXT_NODE, let content = only.pointee.content,
           case let name = HTMLNode.name(of: root), !skipped.contains(name), name != "pre" {
            return paragraphs(of: collapsingWhitespace(String(cString: content)))
        }
        var output: [UInt8] = []
        var state = WalkState()
        walk(root, into: &output, state: &state)
        return paragraphs(of: String(decoding: output, as: UTF8.self))
    }

    /// jsoup's `Element.text()`: the node's text on one line (block boundaries and `<br>` are spaces, runs of
    /// whitespace and NO-BREAK SPACE one space, zero-width spaces and soft hyphens dropped), trimmed, but not of
    /// IDEOGRAPHIC SPACE, which jsoup does not count as whitespace (a title's trailing U+3000 survives in Legado).
    package static func inlineText(of node: HTMLNode) -> String {
        let root = node.pointer
        if let only = root.pointee.children, only.pointee.next == nil,
           only.pointee.type == XML_TEXT_NODE, let content = only.pointee.content,
           case let name = HTMLNode.name(of: root), !skipped.contains(name), name != "pre" {
            return titleLine(String(cString: content), isMarkup: false)
        }
        var output: [UInt8] = []
        var state = WalkState()
        walk(root, into: &output, state: &state)
        return titleLine(String(decoding: output, as: UTF8.self), isMarkup: false)
    }

    /// A chapter title on one line, as Legado keeps it: like `singleLine`, but a leading or trailing
    /// IDEOGRAPHIC SPACE stays (jsoup's `text()` and Legado's chapter list keep it; book names and authors,
    /// which Legado trims, use `singleLine`). `isMarkup` false says `text` came out of the DOM and its
    /// entities are already decoded: it is then never read as markup again.
    public static func titleLine(_ text: String, isMarkup: Bool = true) -> String {
        if text.isEmpty { return text }
        let plain = isMarkup && containsMarkup(text) ? self.text(fromMarkup: text) : text
        return jsoupNormalisedWhitespace(plain)
    }

    /// jsoup's whitespace normalisation for `text()`: runs of ASCII whitespace and NO-BREAK SPACE become one
    /// space, the ends are trimmed, ZERO WIDTH SPACE and SOFT HYPHEN are dropped (`StringUtil.isActuallyWhitespace`,
    /// `isInvisibleChar`); IDEOGRAPHIC SPACE is text.
    static func jsoupNormalisedWhitespace(_ text: String) -> String {
        var copy = text
        if !copy.withUTF8(needsJsoupNormalising) { return text }
        var output: [UInt8] = []
        copy.withUTF8 { appendJsoupNormalised($0, to: &output) }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether `jsoupNormalisedWhitespace` would change `bytes`: whitespace at an end or in a run, a tab or line
    /// break, a NO-BREAK SPACE, a SOFT HYPHEN or a ZERO WIDTH SPACE.
    /// Every chapter title of a TOC goes through this. Eight bytes at a time are skipped when none of them is a
    /// space or control byte or 0xC2 or 0xE2 (the lead bytes of NO-BREAK SPACE, SOFT HYPHEN and ZERO WIDTH
    /// SPACE); the first that is one is looked at with the bytes after it.
    private static func needsJsoupNormalising(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = bytes.baseAddress, let first = bytes.first, let last = bytes.last else { return true }
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C }
        if isSpace(first) || isSpace(last) { return true }
        let count = bytes.count
        var index = 0
        while index < count {
            if index + 8 <= count {
                let word = ByteScan.word(base, index)
                let marks = ByteScan.bytes(of: word, below: 0x21) | ByteScan.bytes(of: word, equalTo: 0xC2)
                    | ByteScan.bytes(of: word, equalTo: 0xE2)
                if marks == 0 {
                    index += 8
                    continue
                }
                index += marks.trailingZeroBitCount / 8
            }
            switch bytes[index] {
            case 0x09, 0x0A, 0x0D, 0x0C: return true
            case 0x20: if index + 1 < count, isSpace(bytes[index + 1]) { return true }
            case 0xC2: if index + 1 < count, bytes[index + 1] == 0xA0 || bytes[index + 1] == 0xAD { return true }
            case 0xE2: if index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] == 0x8B { return true }
            default: break
            }
            index += 1
        }
        return false
    }

    /// `jsoupNormalisedWhitespace` of `bytes`, appended to `output`.
    private static func appendJsoupNormalised(_ bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8]) {
        let start = output.count
        output.reserveCapacity(start + bytes.count)
        var pendingSpace = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                pendingSpace = output.count > start
                index += 1
                continue
            }
            if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0xA0 {
                pendingSpace = output.count > start
                index += 2
                continue
            }
            if byte == 0xC2, index + 1 < bytes.count, bytes[index + 1] == 0xAD {
                index += 2
                continue
            }
            if byte == 0xE2, index + 2 < bytes.count, bytes[index + 1] == 0x80, bytes[index + 2] == 0x8B {
                index += 3
                continue
            }
            if pendingSpace { output.append(0x20); pendingSpace = false }
            output.append(byte)
            index += 1
        }
    }

    /// Plain text from a string that may hold markup or entities (a regex group taken from raw HTML, an
    /// `html()` result, a JSON string): its tags read and its character references decoded, once. Strings with no tag and no entity are already text (an element's value) and are only
    /// trimmed per paragraph, so their line breaks survive and a decoded `&` is not decoded twice.
    public static func text(fromMarkup markup: String) -> String {
        text(fromMarkup: markup, pictures: nil)
    }

    /// `text(fromMarkup:)` for chapter content (`ruleContent.content`): the same text, and every `<img>` a line
    /// of its own in `ImageLine` form, its address resolved against `baseURL` (the page's, after `<base href>`).
    /// Titles, names and every other field keep `text(fromMarkup:)`, where pictures are dropped.
    public static func contentText(fromMarkup markup: String, baseURL: String) -> String {
        text(fromMarkup: markup, pictures: PictureBase(baseURL))
    }

    /// `text(of:)` for chapter content: every `<img>` under `node` a line of its own in `ImageLine` form,
    /// resolved against `baseURL`, by default the base URL of the node's document (`<base href>` applied).
    public static func contentText(of node: HTMLNode, baseURL: String? = nil) -> String {
        var output: [UInt8] = []
        var state = WalkState()
        state.pictures = PictureBase(baseURL ?? node.document.baseURL)
        walk(node.pointer, into: &output, state: &state)
        return paragraphs(of: String(decoding: output, as: UTF8.self))
    }

    private static func text(fromMarkup markup: String, pictures: PictureBase?) -> String {
        let kind = markupKind(markup)
        if !kind.tag && !kind.reference {
            return paragraphs(of: markup)
        }
        var body = Array(markup.utf8)
        if !kind.tag {
            // Text with a character reference but no tag (an element's value holding a literal `&amp;`) is
            // text whose line breaks are paragraphs: as markup they would be mere spaces.
            body = Array(body.split(omittingEmptySubsequences: false) { $0 == 0x0A }
                .joined(separator: Array("<br>".utf8)))
        }
        let wrapped = Array("<html><body><div>".utf8) + body + Array("</div></body></html>".utf8)
        let decision = CharsetDecision(charset: "UTF-8", reason: .validUTF8)
        guard let document = try? HTMLDocument(bytes: wrapped, url: "about:blank", charset: decision) else {
            return paragraphs(of: markup)
        }
        guard let pictures else { return text(of: document.root) }
        var output: [UInt8] = []
        var state = WalkState()
        state.pictures = pictures
        walk(document.root.pointer, into: &output, state: &state)
        return paragraphs(of: String(decoding: output, as: UTF8.self))
    }

    /// Whether `text` holds a tag (`<p`, `</p`, `<!--`) or a character reference (`&amp;`, `&#20013;`).
    package static func containsMarkup(_ text: String) -> Bool {
        let kind = markupKind(text)
        return kind.tag || kind.reference
    }

    /// `containsMarkup` on UTF-8 bytes.
    package static func containsMarkup(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let kind = markupKind(utf8: bytes)
        return kind.tag || kind.reference
    }

    /// Whether `text` holds a tag, and whether it holds a character reference: `&name;` (a letter first, as
    /// in HTML; `&039;` is text), `&#20013;` or `&#x4E2D;`.
    static func markupKind(_ text: String) -> (tag: Bool, reference: Bool) {
        var copy = text
        return copy.withUTF8(markupKind(utf8:))
    }

    /// `markupKind` on UTF-8 bytes.
    static func markupKind(utf8 bytes: UnsafeBufferPointer<UInt8>) -> (tag: Bool, reference: Bool) {
        var reference = false
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "<"), index + 1 < bytes.count {
                let next = bytes[index + 1]
                if isASCIILetter(next) || next == UInt8(ascii: "/") || next == UInt8(ascii: "!") { return (true, reference) }
            } else if byte == UInt8(ascii: "&"), !reference {
                var end = index + 1
                let numeric = end < bytes.count && bytes[end] == UInt8(ascii: "#")
                if numeric { end += 1 }
                let start = end
                if numeric || (end < bytes.count && isASCIILetter(bytes[end])) {
                    while end < bytes.count, end - start < 32,
                          isASCIILetter(bytes[end]) || (bytes[end] >= 0x30 && bytes[end] <= 0x39) {
                        end += 1
                    }
                }
                if end > start, end < bytes.count, bytes[end] == UInt8(ascii: ";") { reference = true }
            }
            index += 1
        }
        return (false, reference)
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool {
        (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
    }

    /// Splits `text` into lines, trims each of paragraph space, drops empty ones, and joins them with "\n".
    public static func paragraphs(of text: String) -> String {
        var lines: [String] = []
        var current = Substring(text)
        while !current.isEmpty {
            let breakIndex = current.utf8.firstIndex { $0 == 0x0A || $0 == 0x0D } ?? current.endIndex
            let trimmed = current[..<breakIndex].trimmingParagraphSpace()
            if !trimmed.isEmpty { lines.append(trimmed) }
            if breakIndex == current.endIndex { break }
            current = current[current.utf8.index(after: breakIndex)...]
        }
        return lines.count == 1 ? lines[0] : lines.joined(separator: "\n")
    }

    /// Text on one line: markup removed, every run of whitespace (line breaks included) one space, and the
    /// ends trimmed of paragraph space. For titles, names and other one-line fields. `isMarkup` false says
    /// `text` came out of the DOM and its entities are already decoded: it is then never read as markup again.
    public static func singleLine(_ text: String, isMarkup: Bool = true) -> String {
        if text.isEmpty { return text }
        let plain = isMarkup && containsMarkup(text) ? self.text(fromMarkup: text) : text
        return collapsingWhitespace(plain).trimmingParagraphSpace()
    }

    /// `singleLine(_:isMarkup: false)` (or, for a chapter title, `titleLine(_:isMarkup: false)`) of UTF-8
    /// bytes read off the DOM, using `scratch` (emptied first, its storage reused) so that a value costs one
    /// string allocation: the per-chapter path of the TOC. The bytes are text, their entities already decoded.
    package static func singleLine(utf8 bytes: [UInt8], scratch output: inout [UInt8], isTitle: Bool) -> String {
        bytes.withUnsafeBufferPointer { singleLine(utf8: $0, scratch: &output, isTitle: isTitle) }
    }

    /// `singleLine(utf8:scratch:isTitle:)` of bytes borrowed from where they are stored (a text node's content).
    package static func singleLine(utf8 input: UnsafeBufferPointer<UInt8>, scratch output: inout [UInt8],
                                   isTitle: Bool) -> String {
        if input.isEmpty { return "" }
        if isTitle {
            if !needsJsoupNormalising(input) { return String(decoding: input, as: UTF8.self) }
            output.removeAll(keepingCapacity: true)
            appendJsoupNormalised(input, to: &output)
            return String(decoding: output, as: UTF8.self)
        }
        if !needsCollapsing(input) {
            let kept = SpaceTrimming.range(of: input, paragraphSpace: true)
            return String(decoding: UnsafeBufferPointer(rebasing: input[kept]), as: UTF8.self)
        }
        output.removeAll(keepingCapacity: true)
        appendCollapsed(input, to: &output)
        return output.withUnsafeBufferPointer { collapsed in
            let kept = SpaceTrimming.range(of: collapsed, paragraphSpace: true)
            return String(decoding: UnsafeBufferPointer(rebasing: collapsed[kept]), as: UTF8.self)
        }
    }

    /// Collapses runs of ASCII whitespace (including line breaks) into single spaces, as a browser renders
    /// inline text. Leading and trailing whitespace is dropped.
    public static func collapsingWhitespace(_ text: String) -> String {
        if !needsCollapsing(text.utf8) { return text }
        var output: [UInt8] = []
        output.reserveCapacity(text.utf8.count)
        appendCollapsed(text.utf8, to: &output)
        return String(decoding: output, as: UTF8.self)
    }

    /// `bytes` with each run of ASCII whitespace made one space and none at either end, appended to an empty
    /// `output`.
    private static func appendCollapsed<Bytes: Sequence<UInt8>>(_ bytes: Bytes, to output: inout [UInt8]) {
        var pendingSpace = false
        for byte in bytes {
            if byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C {
                pendingSpace = !output.isEmpty
            } else {
                if pendingSpace { output.append(0x20); pendingSpace = false }
                output.append(byte)
            }
        }
    }

    /// Whether collapsing would change `bytes`: a whitespace run, a tab or line break, or space at either end.
    private static func needsCollapsing<Bytes: Sequence<UInt8>>(_ bytes: Bytes) -> Bool {
        var previousSpace = true
        for byte in bytes {
            let isSpace = byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C
            if isSpace && (previousSpace || byte != 0x20) { return true }
            previousSpace = isSpace
        }
        return previousSpace
    }

    private struct WalkState {
        var pendingSpace = false
        var preDepth = 0
        /// Set for chapter content: `<img>` becomes an image line resolved against it.
        var pictures: PictureBase?
    }

    /// An element `walk` has entered and must close once its children are done.
    private struct OpenElement {
        let node: xmlNodePtr
        let isBlock: Bool
        let isPre: Bool
    }

    /// Appends the text of `root` and its subtree in document order. Iterative (an explicit stack and
    /// libxml2's sibling links), so a page nested thousands of levels deep costs no call stack.
    private static func walk(_ root: xmlNodePtr, into output: inout [UInt8], state: inout WalkState) {
        var open: [OpenElement] = []
        var current: xmlNodePtr? = root
        while true {
            guard let node = current else {
                // A list of siblings is done: close its parent, then go on after it.
                guard let element = open.popLast() else { return }
                close(element, into: &output, state: &state)
                if element.node == root { return }
                current = element.node.pointee.next
                continue
            }
            var firstChild: xmlNodePtr?
            switch node.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = node.pointee.content { appendText(content, into: &output, state: &state) }
            case XML_ELEMENT_NODE, XML_DOCUMENT_NODE, XML_HTML_DOCUMENT_NODE:
                let name = HTMLNode.name(of: node)
                if skipped.contains(name) { break }
                if name == "br" {
                    output.append(0x0A)
                    state.pendingSpace = false
                    break
                }
                if name == "img", let pictures = state.pictures {
                    if let picture = pictures.picture(of: node) {
                        output.append(0x0A)
                        output.append(contentsOf: picture.line.utf8)
                        output.append(0x0A)
                        state.pendingSpace = false
                    }
                    break
                }
                let element = OpenElement(node: node, isBlock: blocks.contains(name), isPre: name == "pre")
                if element.isBlock { output.append(0x0A); state.pendingSpace = false }
                if element.isPre { state.preDepth += 1 }
                if let child = node.pointee.children {
                    open.append(element)
                    firstChild = child
                } else {
                    close(element, into: &output, state: &state)
                }
            default:
                break
            }
            if let firstChild {
                current = firstChild
            } else {
                current = node == root ? nil : node.pointee.next
                if node == root && open.isEmpty { return }
            }
        }
    }

    private static func close(_ element: OpenElement, into output: inout [UInt8], state: inout WalkState) {
        if element.isPre { state.preDepth -= 1 }
        if element.isBlock { output.append(0x0A); state.pendingSpace = false }
    }

    private static func appendText(_ content: UnsafePointer<xmlChar>, into output: inout [UInt8], state: inout WalkState) {
        var pointer = content
        while pointer.pointee != 0 {
            let byte = pointer.pointee
            if state.preDepth == 0 && (byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0C) {
                state.pendingSpace = true
            } else {
                if state.pendingSpace {
                    if let last = output.last, last != 0x0A { output.append(0x20) }
                    state.pendingSpace = false
                }
                output.append(byte)
            }
            pointer += 1
        }
    }
}

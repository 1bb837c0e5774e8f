import BookRuleDocument

/// A site's page re-written for the studio's frame: a serializer over the parsed tree that writes only
/// allow-listed elements and attributes, so nothing of the site runs or loads and what the browser parses is
/// the tree meant, with every element written numbered (`data-br="N"`, in document order) so the studio can
/// mark what a rule matched and say which node was clicked.
///
/// - Elements outside `elements` are not written: those in `droppedElements` (scripts, templates, frames,
///   objects, `noscript`, …) with everything inside, any other (foreign content such as `<svg>` and `<math>`,
///   custom and unknown elements) flattened: its children are written in its place.
/// - Void elements (`wbr`, `embed`, `br`, …) are written without an end tag, and whatever libxml2 put inside
///   one (it reads some of them as containers) is written after it, so no text is lost.
/// - `<style>` holds only its text, with every `<` written as the CSS escape `\3c `: no end tag or markup can
///   form inside it in any parsing mode. `<textarea>` and `<title>` hold only their escaped text (the browser
///   reads them as RCDATA). A form inside a form is flattened, as the browser would drop its start tag.
/// - Attributes outside `attributes` (every `on…` handler among them) are dropped, as are `data-br…` and any
///   name that is not plain. Attributes that load or navigate (`href`, `src`, `srcset`, …) are renamed to
///   `data-br-NAME` (emptied when they hold a `javascript:`, `vbscript:` or `data:` URL), so the frame neither
///   fetches nor navigates anywhere (the CSP and the sandbox would stop it too).
/// - Text and attribute values are escaped (`&`, `<`, `>`, and `"` in values); comments, doctypes and
///   processing instructions are dropped.
///
/// So the output's only `<` start allow-listed tags (`strayMarkup(in:)` checks exactly that).
package struct SanitizedPage: Sendable {
    /// The page to serve in the frame, UTF-8.
    package let html: [UInt8]
    /// Element number by `HTMLNode.identity`.
    package let numbers: [Int: Int]
    /// The elements by number.
    package let elements: [HTMLNode]

    /// Where the studio's own stylesheet for the frame is served (same origin; the CSP allows it).
    package static let stylesheetPath = "/assets/frame.css"

    /// Re-writes `document`.
    package init(document: HTMLDocument) {
        var writer = Writer()
        writer.output.append(contentsOf: Array(Self.doctype.utf8))
        let top = document.root.childNodes
        let hasHTML = top.contains { $0.kind == .element && $0.name == "html" }
        if !hasHTML { writer.output.append(contentsOf: Self.studioHead) }
        for node in top { writer.write(node) }
        html = writer.output
        numbers = writer.numbers
        elements = writer.elements
    }

    static let doctype = "<!DOCTYPE html>"

    /// What the studio puts first in the page's head: the charset and its stylesheet.
    static let studioHead = Array("<meta charset=\"utf-8\"><link rel=\"stylesheet\" href=\"\(stylesheetPath)\">".utf8)

    /// The elements written (with their number). Document structure, text, lists, tables, inline markup,
    /// images and form controls: what a page needs to read as it does, and nothing that runs, embeds or
    /// switches the browser's parser into another mode beyond `style`, `textarea` and `title`.
    package static let elements: Set<String> = [
        "html", "head", "body", "title", "style",
        "address", "article", "aside", "footer", "header", "h1", "h2", "h3", "h4", "h5", "h6", "hgroup", "main", "nav",
        "section", "blockquote", "dd", "div", "dl", "dt", "figcaption", "figure", "hr", "li", "ol", "p", "pre", "ul",
        "menu", "center", "a", "abbr", "acronym", "b", "bdi", "bdo", "big", "br", "cite", "code", "data", "dfn", "em",
        "font", "i", "kbd", "mark", "nobr", "q", "rp", "rt", "ruby", "s", "samp", "small", "span", "strike", "strong",
        "sub", "sup", "time", "tt", "u", "var", "wbr", "del", "ins", "img", "map", "area", "caption", "col",
        "colgroup", "table", "tbody", "td", "tfoot", "th", "thead", "tr", "button", "datalist", "fieldset", "form",
        "input", "label", "legend", "meter", "optgroup", "option", "output", "progress", "select", "textarea",
        "details", "summary",
    ]
    /// Elements not written, nor anything inside them: what runs, embeds another document or is never shown.
    static let droppedElements: Set<String> = [
        "script", "noscript", "template", "iframe", "frame", "frameset", "object", "applet", "portal", "noembed",
        "noframes", "audio", "video", "canvas",
    ]
    /// Elements that have no end tag in HTML.
    static let voidElements: Set<String> = [
        "area", "base", "br", "col", "embed", "hr", "img", "input", "keygen", "link", "meta", "param", "source",
        "track", "wbr",
    ]
    /// Elements whose content the browser reads as text (RCDATA or raw text): only their text is written.
    static let textOnlyElements: Set<String> = ["style", "textarea", "title"]
    /// Attributes written as they are (besides `data-…` and `aria-…`).
    package static let attributes: Set<String> = [
        "id", "class", "title", "lang", "dir", "style", "hidden", "role", "name", "alt", "width", "height", "align",
        "valign", "bgcolor", "color", "face", "size", "border", "cellpadding", "cellspacing", "colspan", "rowspan",
        "headers", "scope", "abbr", "type", "value", "placeholder", "checked", "selected", "disabled", "readonly",
        "multiple", "maxlength", "rows", "cols", "for", "label", "start", "reversed", "span", "nowrap", "clear",
        "noshade", "datetime", "open", "method", "shape", "coords", "wrap", "translate", "charset",
    ]
    /// Attributes that make the browser load or navigate; kept under `data-br-` so the page still reads right.
    static let urlAttributes: Set<String> = [
        "href", "src", "srcset", "action", "formaction", "poster", "background", "data", "cite", "longdesc", "ping",
        "xlink:href", "manifest", "codebase", "archive", "lowsrc", "dynsrc", "imagesrcset", "http-equiv", "usemap",
    ]

    private struct Writer {
        var output: [UInt8] = []
        var numbers: [Int: Int] = [:]
        var elements: [HTMLNode] = []
        var sawHead = false
        var formDepth = 0

        mutating func write(_ node: HTMLNode) {
            switch node.kind {
            case .text:
                appendEscaped(node.stringValue, attribute: false)
            case .element:
                writeElement(node)
            case .document:
                for child in node.childNodes { write(child) }
            case .attribute, .other:
                break  // comments, doctypes, processing instructions
            }
        }

        mutating func writeElement(_ node: HTMLNode) {
            let name = node.name.lowercased()
            if droppedElements.contains(name) { return }
            guard SanitizedPage.elements.contains(name), !(name == "form" && formDepth > 0) else {
                for child in node.childNodes { write(child) }
                return
            }
            let number = elements.count
            numbers[node.identity] = number
            elements.append(node)
            output.append(UInt8(ascii: "<"))
            output.append(contentsOf: Array(name.utf8))
            for (attribute, value) in node.attributes {
                let lowered = attribute.lowercased()
                let isURL = SanitizedPage.urlAttributes.contains(lowered)
                guard isURL || SanitizedPage.isAllowedAttribute(lowered) else { continue }
                let written = isURL ? "data-br-" + lowered.replacingOccurrences(of: ":", with: "-") : lowered
                output.append(UInt8(ascii: " "))
                output.append(contentsOf: Array(written.utf8))
                output.append(contentsOf: Array("=\"".utf8))
                appendEscaped(isURL && SanitizedPage.isScriptURL(value) ? "" : value, attribute: true)
                output.append(UInt8(ascii: "\""))
            }
            output.append(contentsOf: Array(" data-br=\"\(number)\">".utf8))
            let children = node.childNodes
            if name == "html" {
                // The studio's head goes first; a page without a <head> gets one of its own.
                if !children.contains(where: { $0.kind == .element && $0.name == "head" }) {
                    output.append(contentsOf: Array("<head>".utf8) + SanitizedPage.studioHead + Array("</head>".utf8))
                }
            } else if name == "head" && !sawHead {
                sawHead = true
                output.append(contentsOf: SanitizedPage.studioHead)
            }
            if SanitizedPage.voidElements.contains(name) {
                // What libxml2 nested inside a void element followed it in the page.
                for child in children { write(child) }
                return
            }
            if SanitizedPage.textOnlyElements.contains(name) {
                writeText(of: node, style: name == "style")
            } else {
                if name == "form" { formDepth += 1 }
                for child in children { write(child) }
                if name == "form" { formDepth -= 1 }
            }
            output.append(contentsOf: Array("</\(name)>".utf8))
        }

        /// The text inside a text-only element: a stylesheet with no `<` at all, or escaped text.
        mutating func writeText(of node: HTMLNode, style: Bool) {
            let text = node.stringValueOfTextDescendants
            if style {
                output.append(contentsOf: Array(text.replacingOccurrences(of: "<", with: "\\3c ").utf8))
            } else {
                appendEscaped(text, attribute: false)
            }
        }

        mutating func appendEscaped(_ text: String, attribute: Bool) {
            for byte in text.utf8 {
                switch byte {
                case UInt8(ascii: "&"): output.append(contentsOf: Array("&amp;".utf8))
                case UInt8(ascii: "<"): output.append(contentsOf: Array("&lt;".utf8))
                case UInt8(ascii: ">"): output.append(contentsOf: Array("&gt;".utf8))
                case UInt8(ascii: "\"") where attribute: output.append(contentsOf: Array("&quot;".utf8))
                default: output.append(byte)
                }
            }
        }
    }

    /// Whether an attribute (lower-cased) is written as it is: one of `attributes`, or a plain `data-…` or
    /// `aria-…` name (never `data-br…`, the studio's own).
    static func isAllowedAttribute(_ name: String) -> Bool {
        if attributes.contains(name) { return true }
        guard isPlainName(name), !name.hasPrefix("data-br") else { return false }
        return name.hasPrefix("data-") || name.hasPrefix("aria-")
    }

    /// Letters, digits and `-`, starting with a letter: a name every browser reads the same way.
    static func isPlainName(_ name: String) -> Bool {
        guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
        return name.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                || byte == UInt8(ascii: "-")
        }
    }

    /// Whether a URL runs script when followed (`javascript:`, `vbscript:`, `data:`), read as browsers read
    /// it: case and the whitespace and control characters they skip ignored. Such values are dropped even
    /// though the renamed attribute is inert, so no copy of the page carries one.
    static func isScriptURL(_ value: String) -> Bool {
        let squeezed = String(value.unicodeScalars.filter { $0.value > 0x20 }).lowercased()
        return squeezed.hasPrefix("javascript:") || squeezed.hasPrefix("vbscript:") || squeezed.hasPrefix("data:")
    }

    /// The number of the element a matched node stands for: the node itself, or the element holding an
    /// attribute or text node; nil when it was not written (inside `<script>`, a flattened `<svg>`) or is the
    /// document.
    package func number(of node: HTMLNode) -> Int? {
        switch node.kind {
        case .element: return numbers[node.identity]
        case .attribute, .text, .other: return node.parentNode.flatMap { numbers[$0.identity] }
        case .document: return nil
        }
    }
}

extension HTMLNode {
    /// The text of every text node below this one, in order, as written (no block breaks added).
    fileprivate var stringValueOfTextDescendants: String {
        var text = ""
        for child in childNodes {
            switch child.kind {
            case .text: text += child.stringValue
            case .element: text += child.stringValueOfTextDescendants
            case .attribute, .document, .other: break
            }
        }
        return text
    }
}

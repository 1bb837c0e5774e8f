import BookRuleDocument

/// A site's page re-written for the studio's frame: the parsed tree written out again from an allow-list, so
/// nothing of the site runs or loads, with every element numbered (`data-br="N"`, in document order) so the
/// studio can mark what a rule matched and say which node was clicked.
///
/// Dropped: `<script>`, `<noscript>`, `<template>`, frames, objects, `<base>`, `<link>`, `<meta>`, comments,
/// every `on…` attribute and every attribute whose name is not a plain name. Attributes that load or navigate
/// (`href`, `src`, `srcset`, `action`, `formaction`, `poster`, `background`, `data`, `xlink:href`, …) are
/// renamed to `data-br-NAME` (emptied when they hold a `javascript:`, `vbscript:` or `data:` URL), so the
/// frame neither fetches nor navigates anywhere (the CSP and the sandbox
/// would stop it too; this keeps the page from even trying). `<style>` is kept, with any `</` inside broken up.
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
        writer.output.append(contentsOf: Array("<!DOCTYPE html>".utf8))
        let top = document.root.childNodes
        let hasHTML = top.contains { $0.kind == .element && $0.name == "html" }
        if !hasHTML { writer.output.append(contentsOf: Self.studioHead) }
        for node in top { writer.write(node) }
        html = writer.output
        numbers = writer.numbers
        elements = writer.elements
    }

    /// What the studio puts first in the page's head: the charset and its stylesheet.
    static let studioHead = Array("<meta charset=\"utf-8\"><link rel=\"stylesheet\" href=\"\(stylesheetPath)\">".utf8)

    /// Elements dropped with everything inside them.
    static let droppedElements: Set<String> = [
        "script", "noscript", "template", "iframe", "frame", "frameset", "object", "embed", "applet", "base", "link",
        "meta", "portal", "param",
    ]
    /// Elements that have no end tag.
    static let voidElements: Set<String> = [
        "area", "br", "col", "hr", "img", "input", "source", "track", "wbr", "embed", "keygen",
    ]
    /// Attributes that make the browser load or navigate; kept under `data-br-` so the page still reads right.
    static let urlAttributes: Set<String> = [
        "href", "src", "srcset", "action", "formaction", "poster", "background", "data", "cite", "longdesc", "ping",
        "xlink:href", "manifest", "codebase", "archive", "lowsrc", "dynsrc", "imagesrcset", "http-equiv",
    ]

    private struct Writer {
        var output: [UInt8] = []
        var numbers: [Int: Int] = [:]
        var elements: [HTMLNode] = []
        var sawHead = false

        mutating func write(_ node: HTMLNode) {
            switch node.kind {
            case .text:
                if let parent = node.parentNode, parent.kind == .element, parent.name == "style" {
                    output.append(contentsOf: Array(node.stringValue.replacingOccurrences(of: "</", with: "<\\/").utf8))
                } else {
                    appendEscaped(node.stringValue, attribute: false)
                }
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
            guard !droppedElements.contains(name), Self.isPlainName(name) else { return }
            let number = elements.count
            numbers[node.identity] = number
            elements.append(node)
            output.append(UInt8(ascii: "<"))
            output.append(contentsOf: Array(name.utf8))
            for (attribute, value) in node.attributes {
                let lowered = attribute.lowercased()
                guard Self.isPlainName(lowered), !lowered.hasPrefix("on"), !lowered.hasPrefix("data-br") else { continue }
                let isURL = SanitizedPage.urlAttributes.contains(lowered)
                let written = isURL ? "data-br-" + lowered.replacingOccurrences(of: ":", with: "-") : lowered
                output.append(UInt8(ascii: " "))
                output.append(contentsOf: Array(written.utf8))
                output.append(contentsOf: Array("=\"".utf8))
                appendEscaped(isURL && SanitizedPage.isScriptURL(value) ? "" : value, attribute: true)
                output.append(UInt8(ascii: "\""))
            }
            output.append(contentsOf: Array(" data-br=\"\(number)\">".utf8))
            if name == "html" {
                // The studio's head goes first; a page without a <head> gets one of its own.
                let children = node.childNodes
                if !children.contains(where: { $0.kind == .element && $0.name == "head" }) {
                    output.append(contentsOf: Array("<head>".utf8) + SanitizedPage.studioHead + Array("</head>".utf8))
                }
                for child in children { write(child) }
            } else {
                if name == "head" && !sawHead {
                    sawHead = true
                    output.append(contentsOf: SanitizedPage.studioHead)
                }
                if SanitizedPage.voidElements.contains(name) { return }
                for child in node.childNodes { write(child) }
            }
            output.append(contentsOf: Array("</\(name)>".utf8))
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

        /// Letters, digits, `-`, `_`, `:` and `.`, starting with a letter: anything else is dropped rather than
        /// risk a name that a browser reads differently.
        static func isPlainName(_ name: String) -> Bool {
            guard let first = name.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first) else { return false }
            return name.utf8.allSatisfy { byte in
                (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte)
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
            }
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
    /// attribute or text node; nil when it was dropped (inside `<script>`, say) or is the document.
    package func number(of node: HTMLNode) -> Int? {
        switch node.kind {
        case .element: return numbers[node.identity]
        case .attribute, .text, .other: return node.parentNode.flatMap { numbers[$0.identity] }
        case .document: return nil
        }
    }
}

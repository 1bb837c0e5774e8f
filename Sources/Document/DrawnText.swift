import CLibXML2

/// The text nodes that elements draw, for web-font decoding: CSS gives a font to elements, and their text
/// nodes (not inside `<script>` or `<style>`) are what the font draws, each by the nearest element given a font.
package enum DrawnText {
    /// For each group of elements (one group per font), the text nodes whose nearest ancestor among all the
    /// groups' elements is in that group; a text node is listed once. At most `limit` text nodes in all.
    package static func textNodes(drawnBy groups: [[HTMLNode]], limit: Int = 200_000) -> [[HTMLNode]] {
        var owner: [xmlNodePtr: Int] = [:]
        for (group, elements) in groups.enumerated() {
            for element in elements where element.kind == .element || element.kind == .document {
                owner[element.pointer] = group
            }
        }
        var result = Array(repeating: [HTMLNode](), count: groups.count)
        var seen = Set<xmlNodePtr>()
        var count = 0
        for elements in groups {
            for element in elements where owner[element.pointer] != nil {
                walk(element.pointer) { text in
                    guard count < limit, seen.insert(text).inserted else { return }
                    var node = text.pointee.parent
                    while let current = node, owner[current] == nil { node = current.pointee.parent }
                    guard let drawer = node, let group = owner[drawer] else { return }
                    result[group].append(HTMLNode(document: element.document, pointer: text))
                    count += 1
                }
            }
        }
        return result
    }

    /// The text nodes of `groups` (what `textNodes(drawnBy:)` gave), to leave them out of another pass.
    package static func claimed(_ groups: [[HTMLNode]]) -> Set<HTMLNode> {
        Set(groups.joined())
    }

    /// Calls `body` with each text node below `root`, skipping scripts and styles; iterative, so a deep tree
    /// cannot exhaust the stack.
    private static func walk(_ root: xmlNodePtr, _ body: (xmlNodePtr) -> Void) {
        var stack: [xmlNodePtr] = [root]
        while let node = stack.popLast() {
            switch node.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                body(node)
            case XML_ELEMENT_NODE, XML_DOCUMENT_NODE, XML_HTML_DOCUMENT_NODE:
                if node.pointee.type == XML_ELEMENT_NODE, let name = node.pointee.name {
                    let tag = String(cString: name).lowercased()
                    if tag == "script" || tag == "style" || tag == "noscript" { continue }
                }
                var children: [xmlNodePtr] = []
                var child = node.pointee.children
                while let current = child {
                    children.append(current)
                    child = current.pointee.next
                }
                stack.append(contentsOf: children.reversed())
            default:
                continue
            }
        }
    }
}

extension HTMLNode: Hashable {
    /// Two handles are equal when they are the same node of the same document.
    public static func == (left: HTMLNode, right: HTMLNode) -> Bool {
        left.pointer == right.pointer && left.document === right.document
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(pointer)
    }
}

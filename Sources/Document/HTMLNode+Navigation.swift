import CLibXML2

extension HTMLNode {
    /// The element children, in order (jsoup's `children()`).
    package var elementChildren: [HTMLNode] {
        var children: [HTMLNode] = []
        var child = pointer.pointee.children
        while let item = child {
            if item.pointee.type == XML_ELEMENT_NODE { children.append(HTMLNode(document: document, pointer: item)) }
            child = item.pointee.next
        }
        return children
    }

    /// The parent element or document; nil for the document itself (jsoup's `parent()`).
    package var parentNode: HTMLNode? {
        guard let parent = pointer.pointee.parent else { return nil }
        switch parent.pointee.type {
        case XML_ELEMENT_NODE, XML_HTML_DOCUMENT_NODE, XML_DOCUMENT_NODE:
            return HTMLNode(document: document, pointer: parent)
        default:
            return nil
        }
    }
}

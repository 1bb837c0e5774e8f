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

/// Subtrees taken out of a document that its owner may change (one a script parsed itself): libxml2 frees
/// only what is still in the tree when the document goes, so what was taken out is freed here, once, while
/// the document (held strongly) is still alive to own the names the nodes share with it.
package final class DetachedSubtrees {
    private let document: HTMLDocument
    private var pointers: [xmlNodePtr] = []

    /// Detached subtrees of `document`.
    package init(of document: HTMLDocument) {
        self.document = document
    }

    /// Takes `node` and its subtree out of the document; handles to it stay readable until this goes.
    package func detach(_ node: HTMLNode) {
        guard node.document === document, node.pointer.pointee.parent != nil else { return }
        xmlUnlinkNode(node.pointer)
        pointers.append(node.pointer)
    }

    deinit {
        for pointer in pointers { xmlFreeNode(pointer) }
    }
}

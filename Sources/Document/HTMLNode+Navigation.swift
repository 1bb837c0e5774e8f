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

extension HTMLNode {
    /// Every child node in order (elements, text, comments, …), for a caller that re-writes a tree.
    package var childNodes: [HTMLNode] {
        var children: [HTMLNode] = []
        var child = pointer.pointee.children
        while let item = child {
            children.append(HTMLNode(document: document, pointer: item))
            child = item.pointee.next
        }
        return children
    }

    /// The element's attributes in document order, with their values (empty for other kinds of node).
    package var attributes: [(name: String, value: String)] {
        guard pointer.pointee.type == XML_ELEMENT_NODE else { return [] }
        var result: [(name: String, value: String)] = []
        var property = pointer.pointee.properties
        while let item = property {
            let name = item.pointee.name.map { String(cString: $0) } ?? ""
            let node = UnsafeMutableRawPointer(item).assumingMemoryBound(to: xmlNode.self)
            result.append((name, HTMLNode(document: document, pointer: node).stringValue))
            property = item.pointee.next
        }
        return result
    }

    /// A key that is the same for two `HTMLNode`s of one document exactly when they are the same node, so a
    /// caller can tell which node a rule matched without holding libxml2 pointers.
    package var identity: Int { Int(bitPattern: UnsafeRawPointer(pointer)) }
}

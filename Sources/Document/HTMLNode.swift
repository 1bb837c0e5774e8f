import CLibXML2

/// One node of an `HTMLDocument`: an element, attribute, text node or the document itself.
///
/// A node keeps its document alive, so no raw libxml2 pointer outlives the tree it points into.
public struct HTMLNode: @unchecked Sendable {
    /// The document that owns `pointer`; held strongly on purpose.
    public let document: HTMLDocument
    /// Borrowed from `document`; valid as long as `document` is.
    let pointer: xmlNodePtr

    /// A node of `document`.
    init(document: HTMLDocument, pointer: xmlNodePtr) {
        self.document = document
        self.pointer = pointer
    }

    /// What kind of node this is.
    public var kind: Kind {
        switch pointer.pointee.type {
        case XML_ELEMENT_NODE: return .element
        case XML_ATTRIBUTE_NODE: return .attribute
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE: return .text
        case XML_DOCUMENT_NODE, XML_HTML_DOCUMENT_NODE: return .document
        default: return .other
        }
    }

    /// Node kinds a rule can meet.
    public enum Kind: Sendable, Equatable {
        case element, attribute, text, document, other
    }

    /// The lower-case tag or attribute name (libxml2 calls text nodes "text"; a document has no name).
    public var name: String {
        Self.name(of: pointer)
    }

    /// The value of attribute `name` on this element, if present.
    public func attribute(_ name: String) -> String? {
        Self.attribute(name, of: pointer)
    }

    /// The node's value as a rule sees it: an attribute's value, a text node's text, or an element's visible
    /// text (block elements and `<br>` become line breaks, scripts and styles are dropped, entities decoded).
    public var stringValue: String {
        Self.stringValue(of: pointer, in: document)
    }

    /// `stringValue` for a raw pointer into `document`, without making a node first (the per-chapter path).
    static func stringValue(of pointer: xmlNodePtr, in document: HTMLDocument) -> String {
        switch HTMLNode(document: document, pointer: pointer).kind {
        case .text:
            // Text content is stored on the node: read it without libxml2 copying it first.
            return pointer.pointee.content.map { String(cString: $0) } ?? ""
        case .attribute:
            if let child = pointer.pointee.children, child.pointee.next == nil, child.pointee.type == XML_TEXT_NODE {
                return child.pointee.content.map { String(cString: $0) } ?? ""
            }
            guard let content = xmlNodeGetContent(pointer) else { return "" }
            defer { bookrule_xmlFree(content) }
            return String(cString: content)
        case .other:
            guard let content = xmlNodeGetContent(pointer) else { return "" }
            defer { bookrule_xmlFree(content) }
            return String(cString: content)
        case .element, .document:
            return HTMLTextFormatter.text(of: HTMLNode(document: document, pointer: pointer))
        }
    }

    /// Appends the UTF-8 of `stringValue(of:in:)` to `output` when it is stored on the node (a text node, or
    /// an attribute of one text child), copied straight from libxml2's storage; false, and nothing appended,
    /// for any other node.
    static func appendStoredValue(of pointer: xmlNodePtr, to output: inout [UInt8]) -> Bool {
        withStoredValue(of: pointer) { output.append(contentsOf: $0) } != nil
    }

    /// `body` of the UTF-8 of `stringValue(of:in:)`, borrowed from libxml2's storage, when it is stored on the
    /// node (a text node, or an attribute of one text child: the per-chapter path of the TOC); nil, and `body`
    /// not run, for any other node.
    static func withStoredValue<T>(of pointer: xmlNodePtr, _ body: (UnsafeBufferPointer<UInt8>) -> T) -> T? {
        let text: xmlNodePtr
        switch pointer.pointee.type {
        case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
            text = pointer
        case XML_ATTRIBUTE_NODE:
            guard let child = pointer.pointee.children, child.pointee.next == nil, child.pointee.type == XML_TEXT_NODE
            else { return nil }
            text = child
        default:
            return nil
        }
        guard let content = text.pointee.content else { return body(UnsafeBufferPointer(start: nil, count: 0)) }
        return body(UnsafeBufferPointer(start: content, count: Int(xmlStrlen(content))))
    }

    /// The markup of this node including its own tag; empty when libxml2 cannot write all of it (its buffer
    /// could not grow), rather than a cut-off part passing for the element.
    public var outerHTML: String {
        Self.dump(pointer, document: document) ?? ""
    }

    /// The markup of this node's children; empty when libxml2 cannot write all of it, as for `outerHTML`.
    public var innerHTML: String {
        if kind != .element && kind != .document { return stringValue }
        var result = ""
        var child = pointer.pointee.children
        while let node = child {
            guard let markup = Self.dump(node, document: document) else { return "" }
            result += markup
            child = node.pointee.next
        }
        return result
    }

    /// The markup of `node` (of a document: of its children), or nil when `htmlNodeDump` reports a failure:
    /// the buffer then holds only the part written before it.
    static func dump(_ node: xmlNodePtr, document: HTMLDocument) -> String? {
        guard let buffer = xmlBufferCreate() else { return nil }
        defer { xmlBufferFree(buffer) }
        if node.pointee.type == XML_DOCUMENT_NODE || node.pointee.type == XML_HTML_DOCUMENT_NODE {
            var child = node.pointee.children
            while let item = child {
                guard htmlNodeDump(buffer, document.pointer, item) >= 0 else { return nil }
                child = item.pointee.next
            }
        } else {
            guard htmlNodeDump(buffer, document.pointer, node) >= 0 else { return nil }
        }
        guard let content = xmlBufferContent(buffer) else { return nil }
        return String(cString: content)
    }

    /// The text of this element's own text (and CDATA) children, in order: jsoup's `textNodes()`.
    package var ownTextNodes: [String] {
        var texts: [String] = []
        var child = pointer.pointee.children
        while let item = child {
            if item.pointee.type == XML_TEXT_NODE || item.pointee.type == XML_CDATA_SECTION_NODE,
               let content = item.pointee.content {
                texts.append(String(cString: content))
            }
            child = item.pointee.next
        }
        return texts
    }

    /// This element's own text children joined, each child `<br>` as a space, whitespace not yet collapsed:
    /// what jsoup's `ownText()` starts from.
    package var ownTextWithBreaksAsSpaces: String {
        var text = ""
        var child = pointer.pointee.children
        while let item = child {
            if item.pointee.type == XML_TEXT_NODE || item.pointee.type == XML_CDATA_SECTION_NODE,
               let content = item.pointee.content {
                text += String(cString: content)
            } else if item.pointee.type == XML_ELEMENT_NODE, Self.name(of: item) == "br" {
                text += " "
            }
            child = item.pointee.next
        }
        return text
    }

    static func name(of node: xmlNodePtr) -> String {
        guard let name = node.pointee.name else { return "" }
        return String(cString: name)
    }

    static func attribute(_ name: String, of node: xmlNodePtr) -> String? {
        guard node.pointee.type == XML_ELEMENT_NODE, let value = xmlGetProp(node, name) else { return nil }
        defer { bookrule_xmlFree(value) }
        return String(cString: value)
    }
}

import CLibXML2

/// libxml2 is initialised once before any XML is parsed (the same call `HTMLDocument` makes; a second call is
/// harmless).
private let xmlParserInitialized: Bool = {
    xmlInitParser()
    return true
}()

/// One element of a small XML document read whole into Swift values: its namespace URI, its local name, its
/// text and its child elements.
///
/// For answers whose elements are named in a namespace with whatever prefix the server chose (a WebDAV
/// multistatus says `D:href`, `d:href`, `ns0:href` or `href` with a default namespace): `HTMLDocument` reads
/// markup as HTML, where a prefix is part of the name, so XML of that kind is read here, with libxml2's XML
/// parser, without the network (`XML_PARSE_NONET`), without entity expansion or DTD loading, and bounded in
/// size, element count and depth, since it comes from a server.
public struct XMLTreeNode: Sendable, Equatable {
    /// The element's namespace URI (`DAV:`), nil when it has none.
    public var namespace: String?
    /// The element's name without its prefix (`href`).
    public var name: String
    /// The text directly inside the element (its text and CDATA children, joined), not its descendants'.
    public var text: String
    /// The child elements in document order.
    public var children: [XMLTreeNode]

    /// Creates an element.
    public init(namespace: String?, name: String, text: String = "", children: [XMLTreeNode] = []) {
        self.namespace = namespace
        self.name = name
        self.text = text
        self.children = children
    }

    /// The first child element named `name` in `namespace`.
    public func child(_ name: String, namespace: String?) -> XMLTreeNode? {
        children.first { $0.name == name && $0.namespace == namespace }
    }

    /// Every child element named `name` in `namespace`, in order.
    public func children(_ name: String, namespace: String?) -> [XMLTreeNode] {
        children.filter { $0.name == name && $0.namespace == namespace }
    }

    /// Largest document `parse` reads.
    public static let maxBytes = 16 << 20
    /// Most elements `parse` keeps.
    public static let maxElements = 200_000
    /// Deepest nesting `parse` follows.
    public static let maxDepth = 64

    /// The root element of the XML document `bytes`.
    /// - Throws: `XMLTreeError` when the bytes are not well-formed XML, or exceed the bounds above.
    public static func parse(_ bytes: [UInt8]) throws(XMLTreeError) -> XMLTreeNode {
        _ = xmlParserInitialized
        guard bytes.count <= maxBytes else { throw .tooLarge(bytes: bytes.count, limit: maxBytes) }
        guard !bytes.isEmpty else { throw .malformed(reason: "the document is empty") }
        let options = Int32(XML_PARSE_NONET.rawValue | XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
                            | XML_PARSE_NOCDATA.rawValue)
        let document: xmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlReadMemory(chars.baseAddress, Int32(clamping: chars.count), nil, nil, options)
            }
        }
        guard let document else { throw .malformed(reason: "libxml2 could not read it as XML") }
        defer { xmlFreeDoc(document) }
        guard let root = xmlDocGetRootElement(document) else { throw .malformed(reason: "it has no root element") }
        var count = 0
        return try convert(root, depth: 0, count: &count)
    }

    private static func convert(_ node: xmlNodePtr, depth: Int, count: inout Int) throws(XMLTreeError) -> XMLTreeNode {
        guard depth < maxDepth else { throw .tooDeep(limit: maxDepth) }
        count += 1
        guard count <= maxElements else { throw .tooManyElements(limit: maxElements) }
        let name = node.pointee.name.map { String(cString: $0) } ?? ""
        let namespace = node.pointee.ns?.pointee.href.map { String(cString: $0) }
        var text = ""
        var children: [XMLTreeNode] = []
        var child = node.pointee.children
        while let current = child {
            switch current.pointee.type {
            case XML_ELEMENT_NODE:
                children.append(try convert(current, depth: depth + 1, count: &count))
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content { text += String(cString: content) }
            default:
                break
            }
            child = current.pointee.next
        }
        return XMLTreeNode(namespace: namespace, name: name, text: text, children: children)
    }
}

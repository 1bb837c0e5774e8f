/// One element of a small XML document read whole into Swift values: its namespace URI, its local name, its
/// text and its child elements.
///
/// For answers whose elements are named in a namespace with whatever prefix the server chose (a WebDAV
/// multistatus says `D:href`, `d:href`, `ns0:href` or `href` with a default namespace): `HTMLDocument` reads
/// markup as HTML, where a prefix is part of the name, so XML of that kind is read here, strictly, through
/// `XMLTreeDocument(wellFormed:)` (no network, no entity expansion, no DTD loading), and bounded in size,
/// element count and depth, since it comes from a server.
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
    public static let maxBytes = XMLTreeDocument.maxWellFormedBytes
    /// Most elements `parse` keeps.
    public static let maxElements = 200_000
    /// Deepest nesting `parse` follows.
    public static let maxDepth = 64

    /// The root element of the XML document `bytes`.
    /// - Throws: `XMLTreeError` when the bytes are not well-formed XML, or exceed the bounds above.
    public static func parse(_ bytes: [UInt8]) throws(XMLTreeError) -> XMLTreeNode {
        let document = try XMLTreeDocument(wellFormed: bytes)
        guard let root = document.root else { throw .malformed(reason: "it has no root element") }
        var count = 0
        return try convert(root, depth: 0, count: &count)
    }

    private static func convert(_ element: XMLTreeElement, depth: Int, count: inout Int) throws(XMLTreeError) -> XMLTreeNode {
        guard depth < maxDepth else { throw .tooDeep(limit: maxDepth) }
        count += 1
        guard count <= maxElements else { throw .tooManyElements(limit: maxElements) }
        var children: [XMLTreeNode] = []
        for child in element.children {
            children.append(try convert(child, depth: depth + 1, count: &count))
        }
        return XMLTreeNode(namespace: element.namespace, name: element.localName, text: element.ownText, children: children)
    }
}

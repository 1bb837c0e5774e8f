import CLibXML2

/// A document parsed as XML (not HTML), for RSS and Atom feeds: HTML's parser reads `<link>` as an empty
/// element, which loses every RSS item's link, so a feed needs libxml2's XML parser.
///
/// Safe on untrusted bytes: never touches the network, loads no external DTD or entity, substitutes no
/// entity (a "billion laughs" document stays small), recovers from broken markup as feeds in the wild need,
/// and nests no deeper than `HTMLDocument.maxDepth`. Read-only after parsing, so it may be read from
/// several tasks; freed when the last `XMLTreeElement` of it goes.
package final class XMLTreeDocument: @unchecked Sendable {
    /// Owned libxml2 document, freed in `deinit`; never changed after `init`.
    let pointer: xmlDocPtr

    /// libxml2 options: tolerant, silent, offline, CDATA read as text, entities left unexpanded.
    private static let parseOptions = Int32(XML_PARSE_RECOVER.rawValue | XML_PARSE_NOERROR.rawValue
        | XML_PARSE_NOWARNING.rawValue | XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue
        | XML_PARSE_IGNORE_ENC.rawValue | XML_PARSE_COMPACT.rawValue)

    /// Parses `utf8` (already decoded to UTF-8: the charset was decided as for a page); nil when libxml2
    /// finds no element at all in it.
    package init?(utf8: [UInt8], url: String) {
        _ = libxml2Initialized
        guard !utf8.isEmpty, let context = xmlNewParserCtxt() else { return nil }
        defer { xmlFreeParserCtxt(context) }
        let parsed: xmlDocPtr? = utf8.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlCtxtReadMemory(context, chars.baseAddress, Int32(clamping: chars.count), url, "UTF-8", Self.parseOptions)
            }
        }
        guard let parsed else { return nil }
        guard xmlDocGetRootElement(parsed) != nil else {
            xmlFreeDoc(parsed)
            return nil
        }
        pointer = parsed
    }

    deinit {
        xmlFreeDoc(pointer)
    }

    /// The top element (`<rss>`, `<rdf:RDF>`, `<feed>`).
    package var root: XMLTreeElement? {
        xmlDocGetRootElement(pointer).map { XMLTreeElement(document: self, pointer: $0) }
    }
}

/// One element of an `XMLTreeDocument`; keeps its document alive.
package struct XMLTreeElement: @unchecked Sendable {
    /// The owner of `pointer`, held strongly on purpose.
    package let document: XMLTreeDocument
    /// Borrowed from `document`.
    let pointer: xmlNodePtr

    /// The name as written, prefix included (`media:thumbnail`, `content:encoded`, `title`): feeds are read
    /// by the names their authors write, as Legado's parser (not namespace-aware) does.
    package var name: String {
        let local = pointer.pointee.name.map { String(cString: $0) } ?? ""
        guard let prefix = pointer.pointee.ns?.pointee.prefix else { return local }
        return String(cString: prefix) + ":" + local
    }

    /// The lower-case `name`, for the case-insensitive matching feeds need.
    package var lowercasedName: String { name.lowercased() }

    /// The child elements, in order.
    package var children: [XMLTreeElement] {
        var result: [XMLTreeElement] = []
        var child = pointer.pointee.children
        while let node = child {
            if node.pointee.type == XML_ELEMENT_NODE { result.append(XMLTreeElement(document: document, pointer: node)) }
            child = node.pointee.next
        }
        return result
    }

    /// The value of the attribute named `name` as written (`url`, `type`, `rel`), if present; matched without
    /// regard to case or namespace prefix.
    package func attribute(_ name: String) -> String? {
        let wanted = name.lowercased()
        var attribute = pointer.pointee.properties
        while let property = attribute {
            let local = property.pointee.name.map { String(cString: $0) } ?? ""
            if local.lowercased() == wanted {
                guard let value = xmlNodeGetContent(UnsafeMutableRawPointer(property).assumingMemoryBound(to: xmlNode.self))
                else { return "" }
                defer { bookrule_xmlFree(value) }
                return String(cString: value)
            }
            attribute = property.pointee.next
        }
        return nil
    }

    /// Every piece of text inside the element (CDATA included, entities decoded), concatenated.
    package var text: String {
        guard let content = xmlNodeGetContent(pointer) else { return "" }
        defer { bookrule_xmlFree(content) }
        return String(cString: content)
    }

    /// Whether the element holds child elements (Atom's `type="xhtml"` content) rather than only text.
    package var hasElementChildren: Bool {
        var child = pointer.pointee.children
        while let node = child {
            if node.pointee.type == XML_ELEMENT_NODE { return true }
            child = node.pointee.next
        }
        return false
    }

    /// The markup of the element's children as XML (for content written as XHTML inside the feed); empty when
    /// libxml2 cannot write it.
    package var innerXML: String {
        var result = ""
        var child = pointer.pointee.children
        while let node = child {
            guard let buffer = xmlBufferCreate() else { return "" }
            defer { xmlBufferFree(buffer) }
            guard xmlNodeDump(buffer, document.pointer, node, 0, 0) >= 0, let content = xmlBufferContent(buffer) else { return "" }
            result += String(cString: content)
            child = node.pointee.next
        }
        return result
    }
}

import CLibXML2

/// A document parsed as XML (not HTML): the one place libxml2's XML parser runs. RSS and Atom feeds need it
/// (HTML's parser reads `<link>` as an empty element, which loses every RSS item's link), read tolerantly
/// (`init(utf8:url:)`); a WebDAV answer needs it for its namespaces, read strictly (`init(wellFormed:)`, which
/// `XMLTreeNode` turns into Swift values).
///
/// Safe on untrusted bytes: never touches the network, loads no external DTD or entity, substitutes no
/// entity (a "billion laughs" document stays small), and nests no deeper than `HTMLDocument.maxDepth`.
/// Read-only after parsing, so it may be read from several tasks; freed when the last `XMLTreeElement` of it
/// goes.
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
        let input = Self.referencesAsNumbers(utf8)
        let parsed: xmlDocPtr? = input.withUnsafeBufferPointer { buffer in
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

    /// libxml2 options for a document that must be well-formed: silent, offline, CDATA read as text, entities
    /// left unexpanded, no recovery.
    private static let wellFormedOptions = Int32(XML_PARSE_NOERROR.rawValue | XML_PARSE_NOWARNING.rawValue
        | XML_PARSE_NONET.rawValue | XML_PARSE_NOCDATA.rawValue | XML_PARSE_COMPACT.rawValue)

    /// Largest document `init(wellFormed:)` reads.
    package static let maxWellFormedBytes = 16 << 20

    /// Parses `bytes` as well-formed XML in the encoding they declare (UTF-8 when they declare none).
    /// - Throws: `XMLTreeError` when they are empty, larger than `maxWellFormedBytes`, not well-formed, or have
    ///   no root element.
    package init(wellFormed bytes: [UInt8]) throws(XMLTreeError) {
        _ = libxml2Initialized
        guard bytes.count <= Self.maxWellFormedBytes else {
            throw .tooLarge(bytes: bytes.count, limit: Self.maxWellFormedBytes)
        }
        guard !bytes.isEmpty else { throw .malformed(reason: "the document is empty") }
        let parsed: xmlDocPtr? = bytes.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                xmlReadMemory(chars.baseAddress, Int32(clamping: chars.count), nil, nil, Self.wellFormedOptions)
            }
        }
        guard let parsed else { throw .malformed(reason: "libxml2 could not read it as XML") }
        guard xmlDocGetRootElement(parsed) != nil else {
            xmlFreeDoc(parsed)
            throw .malformed(reason: "it has no root element")
        }
        pointer = parsed
    }

    deinit {
        xmlFreeDoc(pointer)
    }

    /// Named references whose characters are known, written as numeric ones, and a stray `&` as `&#38;`,
    /// outside CDATA sections, comments and processing instructions. Feeds in the wild are often not
    /// well-formed (a bare `&` in a title), and once libxml2 has met one error it drops every later named
    /// reference, even `&lt;` and `&amp;`, while numeric ones still stand. References to other names (a DTD's
    /// entities) are left as written, and not expanded (see `text`).
    static func referencesAsNumbers(_ input: [UInt8]) -> [UInt8] {
        let known: [String: String] = [
            "lt": "60", "gt": "62", "amp": "38", "quot": "34", "apos": "39", "nbsp": "160", "copy": "169",
            "reg": "174", "hellip": "8230", "mdash": "8212", "ndash": "8211", "lsquo": "8216", "rsquo": "8217",
            "ldquo": "8220", "rdquo": "8221", "middot": "183", "times": "215", "deg": "176",
        ]
        let ampersand = UInt8(ascii: "&")
        guard input.contains(ampersand) else { return input }
        var output: [UInt8] = []
        output.reserveCapacity(input.count + input.count / 16)
        var index = 0
        /// Copies through `terminator` when `input` at `index` starts with `opener`; false otherwise.
        func skipSection(_ opener: String, _ terminator: String) -> Bool {
            let open = Array(opener.utf8)
            guard input.count - index >= open.count, Array(input[index..<(index + open.count)]) == open else { return false }
            let close = Array(terminator.utf8)
            var end = index + open.count
            while end < input.count {
                if input.count - end >= close.count, Array(input[end..<(end + close.count)]) == close {
                    end += close.count
                    output.append(contentsOf: input[index..<end])
                    index = end
                    return true
                }
                end += 1
            }
            output.append(contentsOf: input[index...])
            index = input.count
            return true
        }
        while index < input.count {
            let byte = input[index]
            if byte == UInt8(ascii: "<") {
                if skipSection("<![CDATA[", "]]>") || skipSection("<!--", "-->") || skipSection("<?", "?>") { continue }
                output.append(byte)
                index += 1
                continue
            }
            guard byte == ampersand else {
                output.append(byte)
                index += 1
                continue
            }
            // A reference: `&#…;`, `&#x…;` or `&name;` within 32 bytes.
            var end = index + 1
            while end < input.count, end - index <= 32, input[end] != UInt8(ascii: ";"), input[end] != ampersand,
                  input[end] != UInt8(ascii: "<"), input[end] > 0x20 { end += 1 }
            let isReference = end < input.count && input[end] == UInt8(ascii: ";") && end > index + 1
                && isReferenceName(input[(index + 1)..<end])
            if isReference {
                let name = String(decoding: input[(index + 1)..<end], as: UTF8.self)
                if let number = known[name] {
                    output.append(contentsOf: Array("&#\(number);".utf8))
                } else {
                    output.append(contentsOf: input[index...end])
                }
                index = end + 1
            } else {
                output.append(contentsOf: Array("&#38;".utf8))
                index += 1
            }
        }
        return output
    }

    /// Whether `name` (between `&` and `;`) is a reference: `#` and digits, `#x` and hex digits, or an XML name
    /// (a letter, `_`, `:` or a non-ASCII byte, then those, digits, `.` or `-`). `a=1&b=2;` in a URL is not.
    static func isReferenceName(_ name: ArraySlice<UInt8>) -> Bool {
        guard let first = name.first else { return false }
        func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
        func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }
        if first == UInt8(ascii: "#") {
            let rest = name.dropFirst()
            if let x = rest.first, x == UInt8(ascii: "x") || x == UInt8(ascii: "X") {
                let hex = rest.dropFirst()
                return !hex.isEmpty && hex.allSatisfy { isDigit($0) || (($0 | 0x20) >= 0x61 && ($0 | 0x20) <= 0x66) }
            }
            return !rest.isEmpty && rest.allSatisfy(isDigit)
        }
        guard isLetter(first) || first == UInt8(ascii: "_") || first == UInt8(ascii: ":") || first >= 0x80 else { return false }
        return name.dropFirst().allSatisfy { byte in
            isLetter(byte) || isDigit(byte) || byte >= 0x80 || byte == UInt8(ascii: "_") || byte == UInt8(ascii: ":")
                || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "-")
        }
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

    /// The name without its prefix (`href` for `D:href`).
    package var localName: String {
        pointer.pointee.name.map { String(cString: $0) } ?? ""
    }

    /// The URI of the element's namespace (`DAV:`), nil when it has none: what a namespace-aware reader
    /// matches, whatever prefix the document chose.
    package var namespace: String? {
        pointer.pointee.ns?.pointee.href.map { String(cString: $0) }
    }

    /// The text directly inside the element (its text and CDATA children, joined), not its descendants'.
    package var ownText: String {
        var text = ""
        var child = pointer.pointee.children
        while let node = child {
            if node.pointee.type == XML_TEXT_NODE || node.pointee.type == XML_CDATA_SECTION_NODE,
               let content = node.pointee.content {
                text += String(cString: content)
            }
            child = node.pointee.next
        }
        return text
    }

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
                return Self.text(under: UnsafeMutableRawPointer(property).assumingMemoryBound(to: xmlNode.self))
            }
            attribute = property.pointee.next
        }
        return nil
    }

    /// At most this many bytes of text are read from one element or attribute.
    package static let maxTextBytes = 4 * 1024 * 1024

    /// Every piece of text inside the element (CDATA included, the predefined entities decoded), concatenated,
    /// at most `maxTextBytes`. References to entities a DTD declares are skipped, not expanded: libxml2's own
    /// `xmlNodeGetContent` expands them, and nested ones ("billion laughs") would grow without bound.
    package var text: String {
        Self.text(under: pointer)
    }

    /// The text nodes under `node`, in document order, without recursion.
    static func text(under node: xmlNodePtr) -> String {
        var bytes: [UInt8] = []
        var pending: [xmlNodePtr] = []
        var child = node.pointee.last
        while let current = child {
            pending.append(current)
            child = current.pointee.prev
        }
        while let current = pending.popLast(), bytes.count < maxTextBytes {
            switch current.pointee.type {
            case XML_TEXT_NODE, XML_CDATA_SECTION_NODE:
                if let content = current.pointee.content {
                    let length = min(Int(xmlStrlen(content)), maxTextBytes - bytes.count)
                    bytes.append(contentsOf: UnsafeBufferPointer(start: content, count: length))
                }
            case XML_ELEMENT_NODE:
                var inner = current.pointee.last
                while let next = inner {
                    pending.append(next)
                    inner = next.pointee.prev
                }
            default:
                continue
            }
        }
        return String(decoding: bytes, as: UTF8.self)
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

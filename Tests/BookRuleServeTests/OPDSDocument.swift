import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif
import TestSupport

/// A catalog document parsed the way a reader parses it (libxml2 underneath Foundation's `XMLParser`, with
/// namespaces): a tree of elements named by namespace and local name. Parsing fails on anything not
/// well-formed, so every test that reads a feed also checks it is XML.
struct OPDSDocument {
    /// One element.
    final class Element {
        let namespace: String
        let name: String
        let attributes: [String: String]
        var children: [Element] = []
        var text = ""

        init(namespace: String, name: String, attributes: [String: String]) {
            self.namespace = namespace
            self.name = name
            self.attributes = attributes
        }

        /// The Atom children called `name`.
        func atom(_ name: String) -> [Element] {
            children.filter { $0.namespace == OPDSDocument.atom && $0.name == name }
        }

        /// The text of the first Atom child called `name`.
        func atomText(_ name: String) -> String? {
            atom(name).first?.text
        }

        /// The `atom:link`s, as (rel, href, type).
        var links: [(rel: String, href: String, type: String)] {
            atom("link").map { ($0.attributes["rel"] ?? "alternate", $0.attributes["href"] ?? "", $0.attributes["type"] ?? "") }
        }

        /// The first link with `rel`.
        func link(_ rel: String, type: String? = nil) -> (rel: String, href: String, type: String)? {
            links.first { $0.rel == rel && (type == nil || $0.type == type) }
        }
    }

    static let atom = "http://www.w3.org/2005/Atom"

    /// The root element.
    let root: Element

    /// Parses `bytes`; throws when they are not well-formed XML.
    init(_ bytes: [UInt8]) throws {
        let builder = TreeBuilder()
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = true
        parser.delegate = builder
        guard parser.parse(), let root = builder.root else {
            throw TestFailure("not well-formed XML: \(parser.parserError.map { "\($0)" } ?? "no root")\n\(String(decoding: bytes, as: UTF8.self))")
        }
        self.root = root
    }

    private final class TreeBuilder: NSObject, XMLParserDelegate {
        var root: Element?
        var stack: [Element] = []

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName: String?, attributes: [String: String]) {
            let element = Element(namespace: namespaceURI ?? "", name: elementName, attributes: attributes)
            if let parent = stack.last { parent.children.append(element) } else { root = element }
            stack.append(element)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName: String?) {
            stack.removeLast()
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            stack.last?.text += string
        }
    }
}

import CLibXML2

/// An XPath 1.0 expression compiled once (when a source loads) and evaluated against any node of any document.
///
/// The compiled form is never modified after `init`, so one expression serves many documents and tasks.
public final class XPathExpression: @unchecked Sendable {
    /// Owned; freed in `deinit`.
    private let compiled: xmlXPathCompExprPtr
    /// The expression text as compiled.
    public let expression: String

    /// Compiles `expression`, or throws libxml2's message and the offset where it stopped.
    public init(_ expression: String) throws(XPathError) {
        self.expression = expression
        let collector = XPathErrorCollector()
        let result = collector.capturing { xmlXPathCompile(expression) }
        guard let result else {
            throw XPathError.invalid(expression: expression,
                                     message: collector.message ?? "invalid expression",
                                     offset: collector.offset)
        }
        compiled = result
    }

    deinit {
        xmlXPathFreeCompExpr(compiled)
    }

    /// Evaluates the expression with `node` as the context node (and its document as the context document).
    public func evaluate(at node: HTMLNode) throws(XPathError) -> XPathValue {
        let collector = XPathErrorCollector()
        let result: XPathValue? = node.document.withXPathContext { context in
            guard let context else { return nil }
            context.pointee.node = node.pointer
            context.pointee.contextSize = -1
            context.pointee.proximityPosition = -1
            guard let object = collector.capturing({ xmlXPathCompiledEval(compiled, context) }) else { return nil }
            defer { xmlXPathFreeObject(object) }
            return Self.value(of: object, in: node.document)
        }
        guard let result else {
            throw XPathError.evaluation(expression: expression, message: collector.message ?? "evaluation failed")
        }
        return result
    }

    private static func value(of object: xmlXPathObjectPtr, in document: HTMLDocument) -> XPathValue {
        switch object.pointee.type {
        case XPATH_NODESET:
            guard let set = object.pointee.nodesetval, set.pointee.nodeNr > 0, let table = set.pointee.nodeTab else {
                return .nodes([])
            }
            var nodes: [HTMLNode] = []
            nodes.reserveCapacity(Int(set.pointee.nodeNr))
            for index in 0..<Int(set.pointee.nodeNr) {
                // Namespace nodes in a node-set are copies freed with the object: never hand them out.
                guard let item = table[index], item.pointee.type != XML_NAMESPACE_DECL else { continue }
                nodes.append(HTMLNode(document: document, pointer: item))
            }
            return .nodes(nodes)
        case XPATH_STRING:
            guard let text = object.pointee.stringval else { return .string("") }
            return .string(String(cString: text))
        case XPATH_NUMBER:
            return .number(object.pointee.floatval)
        case XPATH_BOOLEAN:
            return .boolean(object.pointee.boolval != 0)
        default:
            return .nodes([])
        }
    }
}

/// What an XPath evaluation gave.
public enum XPathValue: Sendable {
    /// A node-set in document order.
    case nodes([HTMLNode])
    /// A string (from `string()`, `concat()`, `normalize-space()`, …).
    case string(String)
    /// A number (from `count()`, arithmetic, …).
    case number(Double)
    /// A boolean (from comparisons).
    case boolean(Bool)
}

/// Receives libxml2's structured errors for one compile or evaluation, instead of letting them reach stderr.
///
/// libxml2 keeps the handler per thread; `capturing` installs it, runs synchronous libxml2 code on the same
/// thread, and removes it again, so concurrent evaluations on other threads are unaffected.
private final class XPathErrorCollector {
    var message: String?
    var offset: Int = 0

    func capturing<T>(_ body: () -> T) -> T {
        let handler: xmlStructuredErrorFunc = { userData, error in
            guard let userData, let error else { return }
            let collector = Unmanaged<XPathErrorCollector>.fromOpaque(userData).takeUnretainedValue()
            guard collector.message == nil else { return }
            if let text = error.pointee.message {
                collector.message = String(cString: text).trimmingASCIIWhitespace()
            }
            collector.offset = Int(error.pointee.int1)
        }
        bookrule_silence_generic_errors()
        xmlSetStructuredErrorFunc(Unmanaged.passUnretained(self).toOpaque(), handler)
        defer { xmlSetStructuredErrorFunc(nil, nil) }
        return withExtendedLifetime(self) { body() }
    }
}

import BookRuleLocking
import CLibXML2

/// An XPath 1.0 expression compiled when a source loads and evaluated against any node of any document, from
/// any number of tasks at once.
///
/// libxml2 2.9 writes into a compiled expression the first time it runs a function step (it caches the
/// function's address in the step, `op->cache`), so one compiled form must not be evaluated on two threads at
/// once. The expression therefore keeps a small pool of compiled copies, as `HTMLDocument` pools its XPath
/// contexts: an evaluation takes a copy no one else is using (compiling another when all are busy) and gives
/// it back afterwards.
public final class XPathExpression: @unchecked Sendable {
    /// The expression text as compiled.
    public let expression: String
    /// Compiled copies no evaluation is using; each is only ever used by the thread that took it out.
    private let idle: Locked<[CompiledXPath]>

    /// How many idle copies are kept: one per evaluation running at the same time, within reason.
    private static let maximumIdleCopies = 8

    /// The most steps (libxml2's `opCount`: operations run, nodes visited, string lengths) one evaluation may
    /// take before libxml2 stops it. The whole rule set of a real 5,000-chapter TOC takes well under a million
    /// per evaluation (docs/reliability.md, "Limits"), while a predicate that scans the whole page for every
    /// node (`//li[//li[//li]]`) grows with a power of the page's size and would run for minutes: 50 million
    /// is a fraction of a second of work and far above any real rule.
    public static let operationLimit = 50_000_000

    /// Compiles `expression`, or throws libxml2's message and the offset where it stopped.
    public init(_ expression: String) throws(XPathError) {
        self.expression = expression
        // libxml2 reads a C string: a NUL would silently cut the expression short and compile something else.
        if let nul = expression.utf8.firstIndex(of: 0) {
            throw XPathError.invalid(expression: expression, message: "a NUL character cannot appear in XPath",
                                     offset: expression.utf8.distance(from: expression.utf8.startIndex, to: nul))
        }
        let collector = XPathErrorCollector()
        let result = collector.capturing { xmlXPathCompile(expression) }
        guard let result else {
            throw XPathError.invalid(expression: expression,
                                     message: collector.message ?? "invalid expression",
                                     offset: collector.offset)
        }
        idle = Locked([CompiledXPath(result)])
    }

    /// Evaluates the expression with `node` as the context node (and its document as the context document).
    public func evaluate(at node: HTMLNode) throws(XPathError) -> XPathValue {
        let collector = XPathErrorCollector()
        var limitReached = false
        let failure = XPathFunctionFailure()
        let result: XPathValue? = withCompiledCopy(collector) { compiled in
            node.document.withXPathContext { context in
                guard let context else { return nil }
                // Where br:match reports a regex error (XPathRegexFunction); cleared before the context is pooled.
                context.pointee.userData = Unmanaged.passUnretained(failure).toOpaque()
                defer { context.pointee.userData = nil }
                context.pointee.node = node.pointer
                context.pointee.contextSize = -1
                context.pointee.proximityPosition = -1
                // libxml2 adds to the count and never resets it: every evaluation starts from zero.
                context.pointee.opLimit = UInt(Self.operationLimit)
                context.pointee.opCount = 0
                guard let object = collector.capturing({ compiled.evaluate(in: context) }) else {
                    if context.pointee.opCount >= context.pointee.opLimit { limitReached = true }
                    return nil
                }
                defer { xmlXPathFreeObject(object) }
                return Self.value(of: object, in: node.document)
            }
        }
        withExtendedLifetime(failure) {}
        guard let result else {
            switch failure.regexError {
            case .matchLimitExceeded(let pattern)?:
                throw XPathError.regexLimit(expression: expression, pattern: pattern)
            case let error?:
                throw XPathError.evaluation(expression: expression, message: error.description)
            case nil:
                break
            }
            if limitReached { throw XPathError.operationLimit(expression: expression, limit: Self.operationLimit) }
            throw XPathError.evaluation(expression: expression, message: collector.message ?? "evaluation failed")
        }
        return result
    }

    /// Runs `body` with a compiled copy that no other thread is using; nil when another copy could not be
    /// compiled (the text compiled once, so only a lack of memory can make it fail).
    private func withCompiledCopy<T>(_ collector: XPathErrorCollector, _ body: (CompiledXPath) -> T?) -> T? {
        let taken = idle.withLock { $0.popLast() }
            ?? collector.capturing { xmlXPathCompile(expression) }.map(CompiledXPath.init)
        guard let taken else { return nil }
        defer {
            idle.withLock { copies in
                if copies.count < Self.maximumIdleCopies { copies.append(taken) }
            }
        }
        return body(taken)
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
/// libxml2 keeps the handlers per thread; `capturing` installs its own, runs synchronous libxml2 code on the
/// same thread, and puts back whatever handlers were there before (an embedding app's own, say), so neither
/// concurrent evaluations on other threads nor the app's error reporting are affected.
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
        let saved = bookrule_save_error_handlers()
        bookrule_silence_generic_errors()
        xmlSetStructuredErrorFunc(Unmanaged.passUnretained(self).toOpaque(), handler)
        defer { bookrule_restore_error_handlers(saved) }
        return withExtendedLifetime(self) { body() }
    }
}

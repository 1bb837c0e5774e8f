import CLibXML2

/// One compiled copy of an XPath expression: the only owner of its `xmlXPathCompExpr`, freed in `deinit`.
///
/// A copy is used by one thread at a time (`XPathExpression` hands copies out through a lock), because
/// libxml2 writes into it while evaluating.
final class CompiledXPath: @unchecked Sendable {
    private let pointer: xmlXPathCompExprPtr
    /// Evaluations run with this copy. Counting them is a plain Swift write on every evaluation, standing in
    /// for libxml2's own write into the compiled steps, which ThreadSanitizer cannot see (libxml2 is not
    /// instrumented): were a copy ever shared between threads, `make sanitize` reports a race here.
    private(set) var evaluations = 0

    init(_ pointer: xmlXPathCompExprPtr) {
        self.pointer = pointer
    }

    deinit {
        xmlXPathFreeCompExpr(pointer)
    }

    /// Evaluates the copy in `context` (whose node the caller has set); nil when libxml2 reports an error.
    func evaluate(in context: xmlXPathContextPtr) -> xmlXPathObjectPtr? {
        evaluations += 1
        return xmlXPathCompiledEval(pointer, context)
    }
}

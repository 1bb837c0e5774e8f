import CJavaScriptCore

/// A snippet compiled once into a function whose parameters are the bindings and the helper objects, so an
/// evaluation is one call: no `eval` of the text and no globals defined per call.
///
/// One expression is compiled as `return (expression)`; any other snippet is run by the shared statement
/// runner, which `eval`s its code (kept as a string value) inside a function with the same parameters. In
/// both, the bindings are the call's own variables: assigning `result`, `java` or `source`, or declaring
/// `var source`, changes nothing the next snippet sees, and a `jsLib` `const key` does not hide the binding.
///
/// Not `Sendable`: used on the runtime's engine, under its lock.
final class CompiledSnippet {
    /// The parameters, in order: the bindings (`SnippetReading.bindingNames`), then the helper objects.
    static let parameters = (SnippetReading.bindingNames + PreludeFunctions.helperNames).joined(separator: ", ")
    /// How many parameters there are; the statement runner takes the code after them.
    static let parameterCount = SnippetReading.bindingNames.count + PreludeFunctions.helperNames.count

    /// The function to call.
    let function: JSObjectRef
    /// The code, as the statement runner's last argument; nil for an expression.
    let code: JSValueRef?
    /// What the text shows: which bindings to make, whether globals are reached or left behind.
    let reading: SnippetReading
    /// Whether `function` is this snippet's own (released with it) rather than the shared runner.
    private let ownsFunction: Bool

    init(function: JSObjectRef, code: JSValueRef?, reading: SnippetReading, ownsFunction: Bool) {
        self.function = function
        self.code = code
        self.reading = reading
        self.ownsFunction = ownsFunction
    }

    /// Lets the collector have what this snippet kept.
    func release(from engine: JSEngine) {
        if ownsFunction { engine.release(function) }
        if let code { engine.release(code) }
    }
}

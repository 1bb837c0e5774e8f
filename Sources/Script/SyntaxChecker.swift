import CJavaScriptCore
import Foundation

/// One context kept for syntax checks (`ScriptRuntime.checkSyntax`), so a lint over a thousand sources does
/// not start a VM per snippet. JavaScriptCore locks the VM on every call, and the lock here keeps the
/// checks themselves one at a time, hence `@unchecked Sendable`.
final class SyntaxChecker: @unchecked Sendable {
    static let shared = SyntaxChecker()
    private let lock = NSLock()
    private let context: JSGlobalContextRef

    private init() {
        context = JSGlobalContextCreate(nil)
    }

    /// The syntax error in `code`, or nil.
    func check(_ code: String) -> ScriptSyntaxError? {
        lock.withLock {
            var exception: JSValueRef?
            let valid = JSStrings.with(code) { script in
                JSStrings.with("snippet.js") { url in JSCheckScriptSyntax(context, script, url, 1, &exception) }
            }
            if valid { return nil }
            guard let exception else { return ScriptSyntaxError(line: 1, column: nil, message: "SyntaxError") }
            let message = JSStrings.string(of: exception, in: context, exception: nil) ?? "SyntaxError"
            var line = 1
            var column: Int?
            if let object = JSValueToObject(context, exception, nil) {
                for (key, apply) in [("line", { (n: Int) in line = n }), ("column", { (n: Int) in column = n })] {
                    let value = JSStrings.with(key) { JSObjectGetProperty(context, object, $0, nil) }
                    if let value, JSValueIsNumber(context, value) {
                        let number = JSValueToNumber(context, value, nil)
                        if number.isFinite { apply(Int(number)) }
                    }
                }
            }
            return ScriptSyntaxError(line: line, column: column, message: message)
        }
    }
}

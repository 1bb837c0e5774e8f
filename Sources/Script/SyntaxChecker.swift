import CJavaScriptCore
import Foundation

/// One context kept for syntax checks (`ScriptRuntime.checkSyntax`), so a lint over a thousand sources does
/// not start a VM per snippet. JavaScriptCore locks the VM on every call, and the lock here keeps the
/// checks themselves one at a time, hence `@unchecked Sendable`.
final class SyntaxChecker: @unchecked Sendable {
    static let shared = SyntaxChecker()
    private let lock = NSLock()
    /// Nil when JavaScriptCore cannot start in this process (`JavaScriptCoreOptions.startProblem`): nothing is
    /// checked then, and running a snippet reports why.
    private let context: JSGlobalContextRef?

    private init() {
        JavaScriptCoreOptions.apply()
        context = JavaScriptCoreOptions.startProblem == nil ? JSGlobalContextCreate(nil) : nil
    }

    /// The code JavaScriptCore runs for `code`: `code` itself when it parses; else, when that parses, `code`
    /// without the format characters Rhino skips (`FormatCharacters`); else `code` with its syntax error.
    func runnableForm(of code: String) -> (code: String, error: ScriptSyntaxError?) {
        guard let error = check(code) else { return (code, nil) }
        if let stripped = FormatCharacters.stripped(from: code), check(stripped) == nil { return (stripped, nil) }
        return (code, error)
    }

    /// The syntax error in `code`, or nil.
    func check(_ code: String) -> ScriptSyntaxError? {
        lock.withLock {
            guard let (message, line) = error(in: code) else { return nil }
            return ScriptSyntaxError(line: line, column: column(of: message, line: line, in: code), message: message)
        }
    }

    /// The message and line of the syntax error in `code`, or nil when it parses.
    private func error(in code: String) -> (String, Int)? {
        guard let context else { return nil }
        var exception: JSValueRef?
        let valid = JSStrings.with(code) { script in
            JSStrings.with("snippet.js") { url in JSCheckScriptSyntax(context, script, url, 1, &exception) }
        }
        if valid { return nil }
        guard let exception else { return ("SyntaxError", 1) }
        let message = JSStrings.string(of: exception, in: context, exception: nil) ?? "SyntaxError"
        var line = 1
        if let object = JSValueToObject(context, exception, nil) {
            let value = JSStrings.with("line") { JSObjectGetProperty(context, object, $0, nil) }
            if let value, JSValueIsNumber(context, value) {
                let number = JSValueToNumber(context, value, nil)
                if number.isFinite, number >= 1 { line = Int(number) }
            }
        }
        return (message, line)
    }

    /// Where on `line` the error is: JavaScriptCore reports only the line of a syntax error, so the column is
    /// found by parsing prefixes of the line (binary search for the shortest prefix that already gives the
    /// same error, i.e. that ends with the offending token). Nil when that does not settle it.
    private func column(of message: String, line: Int, in code: String) -> Int? {
        let lines = code.split(separator: "\n", omittingEmptySubsequences: false)
        guard line >= 1, line <= lines.count else { return nil }
        let before = lines[..<(line - 1)].joined(separator: "\n") + (line > 1 ? "\n" : "")
        let characters = Array(lines[line - 1])
        func failsTheSame(_ count: Int) -> Bool {
            guard let (prefixMessage, prefixLine) = error(in: before + String(characters[..<count])) else { return false }
            return prefixMessage == message && prefixLine == line
        }
        guard !characters.isEmpty, failsTheSame(characters.count) else { return nil }
        var low = 0
        var high = characters.count
        while low < high {
            let middle = (low + high) / 2
            if failsTheSame(middle) { high = middle } else { low = middle + 1 }
        }
        // The prefix ends with the offending token; the message names it as 'token' when it is one.
        var token = 1
        if let open = message.range(of: "token '"), let close = message[open.upperBound...].firstIndex(of: "'") {
            token = max(1, message[open.upperBound..<close].count)
        }
        return max(1, low - token + 1)
    }
}

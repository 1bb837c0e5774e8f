import BookRuleRules
import BookRuleScript

/// Checks a field's JavaScript when the source loads, so a broken snippet is reported once, with where it
/// breaks, instead of failing every chapter: the syntax (JavaScriptCore's parser, line and column within the
/// snippet), and the `java.*` helpers it names that bookrule does not have (a browser, a person, file access).
enum ScriptCheck {
    /// Why `snippets` cannot run, or nil when they can.
    static func problem(in snippets: [ScriptSnippet]) -> String? {
        for snippet in snippets {
            if let error = ScriptRuntime.checkSyntax(snippet.code) {
                let column = error.column.map { ", column \($0)" } ?? ""
                return "JavaScript syntax error in \(snippet.placement.rawValue) at line \(error.line)\(column): \(error.message)"
            }
            if let helper = ScriptRuntime.unsupportedHelpers(in: snippet.code).first {
                return "\(helper.name): \(helper.reason)"
            }
        }
        return nil
    }
}

import BookRuleJSON
import BookRuleRegex
import Foundation

extension BookSource {
    /// The fields that ask for a browser: a URL with the `webView` option, `java.webView` and its companions or
    /// `java.startBrowser`/`startBrowserAwait` in a script, `ruleContent.webJs` or `ruleContent.sourceRegex`; in document order, each once. `bookrule lint`
    /// names them, since such a source needs Chromium (`apt install chromium`).
    public var webViewFields: [String] {
        var found: [String] = []
        func visit(_ node: JSONNode, _ path: String) {
            switch node.value {
            case .object(let object):
                for member in object.members where member.key != "bookSourceComment" {
                    visit(member.value, path.isEmpty ? member.key : "\(path).\(member.key)")
                }
            case .array(let items):
                for item in items { visit(item, path) }
            case .string(let text):
                if Self.asksForBrowser(text, path: path), !found.contains(path) { found.append(path) }
            default:
                break
            }
        }
        visit(JSONNode(.object(json), location: SourceLocation(line: 1, column: 1)), "")
        return found
    }

    private static func asksForBrowser(_ text: String, path: String) -> Bool {
        if path == "ruleContent.webJs" || path == "ruleContent.sourceRegex" { return !text.isEmpty }
        // A verification page, loaded in the headless browser (`startBrowserDp` and the rest stay unrunnable).
        if text.contains("startBrowser"), (try? Self.startBrowserCall?.matches(text)) == true {
            return true
        }
        guard text.contains("webView") else { return false }
        if text.contains("java.webView") { return true }
        // `"webView": true`, `'webView':true`, `webView:1` as an option, not the word in a comment.
        return (try? Self.webViewOption?.matches(text)) == true
    }

    private static let startBrowserCall = try? RegexPattern(#"java\s*\.\s*startBrowser(Await)?\b"#)
    private static let webViewOption = try? RegexPattern(#"webView['"]?\s*:\s*(?!false|null|0\b|""|'')\S"#)

    /// The webView options a chapter's page takes from `ruleContent` (Legado: `webJs` unless the URL gives one,
    /// `sourceRegex`).
    func contentWebViewDefaults(_ options: WebViewOptions) -> WebViewOptions {
        guard case .object(let rules) = json["ruleContent"]?.value else { return options }
        var merged = options
        if merged.script == nil, let script = rules["webJs"]?.value.stringValue, !script.isEmpty { merged.script = script }
        if merged.sourceRegex == nil, let regex = rules["sourceRegex"]?.value.stringValue, !regex.isEmpty { merged.sourceRegex = regex }
        return merged
    }
}

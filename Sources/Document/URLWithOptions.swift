import Foundation

/// A Legado URL as rules, scripts and chapter pictures write it: an address, then optionally `,{options}`, a
/// JSON object saying how to fetch it (`method`, `body`, `headers`, `charset`, `webView`, …). The one place that
/// splits the two (rule URLs, webView pages, URL fields, media links, chapter pictures, scripts' `java.ajax`,
/// login URLs).
///
/// The grammar is Legado's `AnalyzeUrl` (the first `\s*,\s*(?=\{)`), read on text whose `{{…}}` templates may not
/// be evaluated yet: the comma counts only outside braces (`{{page}}`, `{{ {a:1}.a }}`), and a `{` that opens a
/// template (`,{{page}}`) is not an options object. The brace may also be written `%7B`, as libxml2's
/// serializer escapes it in a `src` attribute; such options are percent-decoded.
package struct URLWithOptions: Sendable, Equatable {
    /// The address, without surrounding white space.
    package var address: String
    /// The options object's text, from its `{` to the end (percent-decoded when its brace was `%7B`), or nil.
    package var options: String?

    /// Splits `text`.
    package init(_ text: String) {
        guard let (comma, brace, escaped) = Self.optionsStart(in: text) else {
            address = text.trimmingASCIIWhitespace()
            options = nil
            return
        }
        address = String(text[..<comma]).trimmingASCIIWhitespace()
        let rest = String(text[brace...]).trimmingASCIIWhitespace()
        options = escaped ? (rest.removingPercentEncoding ?? rest) : rest
    }

    /// The options with their leading comma (`,{"headers":{…}}`), or "": how a chapter's picture line keeps them.
    package var optionsSuffix: String {
        options.map { "," + $0 } ?? ""
    }

    /// Where the options start: the comma and the brace (`{`, or the `%` of `%7B`).
    private static func optionsStart(in text: String) -> (comma: String.Index, brace: String.Index, escaped: Bool)? {
        let bytes = Array(text.utf8)
        var depth = 0
        var index = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "{"):
                depth += 1
            case UInt8(ascii: "}"):
                depth = max(0, depth - 1)
            case UInt8(ascii: ",") where depth == 0:
                var next = index + 1
                while next < bytes.count, SpaceTrimming.isASCIISpace(bytes[next]) { next += 1 }
                if opensObject(bytes, at: next) {
                    let escaped = bytes[next] == UInt8(ascii: "%")
                    return (offset(index, in: text), offset(next, in: text), escaped)
                }
            default:
                break
            }
            index += 1
        }
        return nil
    }

    /// Whether an options object (not a `{{` template) starts at `index`: `{` or `%7B`.
    private static func opensObject(_ bytes: [UInt8], at index: Int) -> Bool {
        func brace(at position: Int) -> Int? {
            guard position < bytes.count else { return nil }
            if bytes[position] == UInt8(ascii: "{") { return 1 }
            if bytes[position] == UInt8(ascii: "%"), position + 2 < bytes.count, bytes[position + 1] == UInt8(ascii: "7"),
               bytes[position + 2] | 0x20 == UInt8(ascii: "b") { return 3 }
            return nil
        }
        guard let width = brace(at: index) else { return false }
        return brace(at: index + width) == nil
    }

    private static func offset(_ byteOffset: Int, in text: String) -> String.Index {
        text.utf8.index(text.utf8.startIndex, offsetBy: byteOffset)
    }
}

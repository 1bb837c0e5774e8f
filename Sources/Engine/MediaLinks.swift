import Foundation
import BookRuleDocument

/// The media files a chapter of an audio (type 1) or image (type 2) source links to, from what its content rule
/// returned: the `src` of `<img>`, `<audio>`, `<video>` and `<source>` elements (`data-src` and
/// `data-original` first, as lazy-loading comic sites use) when the value is markup, else each line as a URL.
/// Legado's `url,{options}` suffix (also as `,%7B…` after serialisation) is dropped; URLs are resolved against the page and only http(s) ones kept,
/// in order, without repeats.
enum MediaLinks {
    private static let elements = try? XPathExpression("//img | //audio | //video | //source")

    static func urls(in values: [String], baseURL: String) -> [String] {
        var found: [String] = []
        for value in values {
            if HTMLTextFormatter.containsMarkup(value) {
                found += fromMarkup(value)
            } else {
                found += value.split(whereSeparator: { $0 == "\n" || $0 == "\r" }).map(String.init)
            }
        }
        var seen: Set<String> = []
        var urls: [String] = []
        for candidate in found {
            // `/html()` comes from libxml2's serializer, which percent-escapes `{` in src attributes: the split
            // reads `,%7B` too.
            let text = URLWithOptions(candidate).address
            guard !text.isEmpty, let absolute = URLReference.resolve(text, against: baseURL),
                  URLReference.isHTTP(absolute), seen.insert(absolute).inserted
            else { continue }
            urls.append(absolute)
        }
        return urls
    }

    private static func fromMarkup(_ markup: String) -> [String] {
        let wrapped = Array("<html><body><div>".utf8) + Array(markup.utf8) + Array("</div></body></html>".utf8)
        let decision = CharsetDecision(charset: "UTF-8", reason: .validUTF8)
        guard let document = try? HTMLDocument(bytes: wrapped, url: "about:blank", charset: decision),
              let expression = elements, case .nodes(let nodes)? = try? expression.evaluate(at: document.root)
        else { return [] }
        return nodes.compactMap { node in
            for name in ["data-src", "data-original", "src"] {
                if let value = node.attribute(name)?.trimmingASCIIWhitespace(), !value.isEmpty { return value }
            }
            return nil
        }
    }
}

import BookRule
import Foundation

extension FuzzTarget {
    static func url(_ bytes: [UInt8]) -> String? {
        let (selector, rest) = selector(bytes)
        let (first, remainder) = firstLine(text(rest))
        let base = remainder.map { firstLine($0).0 } ?? FuzzContexts.baseURL
        if selector % 2 == 0 {
            guard let template = try? URLTemplate(first, field: "searchUrl") else { return nil }
            _ = template.needsScript
            _ = try? template.request(key: "长夜 灯火&x=1", page: Int(selector / 2) - 60, baseURL: base,
                                      sourceHeaders: [HTTPHeader("User-Agent", "fuzz")])
        } else {
            let resolved = URLReference.resolve(first, against: base)
            // One base parsed once resolves each link as the one-shot function does.
            if let parsed = URLReference.Base(base), parsed.resolve(first) != resolved {
                return "Base(\(base)).resolve(\(first)) differs from resolve(_:against:)"
            }
            if let resolved {
                _ = URLReference.withoutFragment(resolved)
                _ = URLReference.isHTTP(resolved)
            }
        }
        return nil
    }

    /// Charset options a source may give (nil: none), and Content-Types a server may send.
    private static let charsetOptions: [String?] = [nil, "utf-8", "gbk", "gb2312", "gb18030", "big5", "shift_jis",
                                                    "euc-kr", "iso-8859-1", "windows-1252", "utf-16", "nonsense"]
    private static let contentTypes: [String?] = [nil, "text/html", "text/html; charset=gbk", "text/html;charset=UTF-8",
                                                  "application/json", "text/plain; charset=\"big5\"",
                                                  "text/html; charset=unknown-8bit", "application/xhtml+xml"]

    static func html(_ bytes: [UInt8]) -> String? {
        let (charsetByte, afterCharset) = selector(bytes)
        let (typeByte, page) = selector(afterCharset)
        let option = charsetOptions[Int(charsetByte) % charsetOptions.count]
        let contentType = contentTypes[Int(typeByte) % contentTypes.count]
        guard let document = try? HTMLDocument(bytes: page, url: FuzzContexts.baseURL, contentType: contentType,
                                               charsetOption: option) else { return nil }
        _ = document.charset.description
        let text = HTMLTextFormatter.text(of: document.root)
        _ = HTMLTextFormatter.paragraphs(of: text)
        _ = HTMLTextFormatter.singleLine(text)
        _ = HTMLTextFormatter.titleLine(text)
        _ = HTMLTextFormatter.collapsingWhitespace(text)
        _ = HTMLTextFormatter.text(fromMarkup: String(document.sourceText.prefix(4096)))
        let environment = RuleEnvironment(baseURL: document.baseURL)
        for rule in ["tag.p@text", "//a/@href", "a@href##\\d+", "class.list@tag.li@html", "$.data[*].name"] {
            _ = try? RuleParser.parse(rule, field: "fuzz", kind: .string)
                .strings(in: document.rootContext, environment: environment)
        }
        return nil
    }

    static func headers(_ bytes: [UInt8]) -> String? {
        let (selector, rest) = selector(bytes)
        let value = text(rest)
        let now = Date(timeIntervalSince1970: 1_750_000_000)
        switch selector % 3 {
        case 0:
            _ = RetryAfter.delay(value, now: now)
            _ = RetryAfter.date(value, now: now)
        case 1:
            if let range = try? ContentRange.parse(value), let bounds = range.range, bounds.lowerBound > bounds.upperBound {
                return "Content-Range \(value) parsed to a reversed range"
            }
        default:
            let store = CookieStore(now: { now })
            let lines = value.split(separator: "\n", omittingEmptySubsequences: false).prefix(64)
            let url = "https://www.example.com/book/1/"
            _ = store.keep(lines.map { HTTPHeader("Set-Cookie", String($0)) }, from: url)
            for target in [url, "http://example.com/", "https://sub.www.example.com/a", "https://other.test/"] {
                _ = store.cookies(for: target)
                _ = store.header(for: target, own: "own=1")
            }
        }
        return nil
    }
}

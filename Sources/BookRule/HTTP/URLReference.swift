/// Resolves links the way a browser does (RFC 3986 section 5.2), on strings.
///
/// Foundation's URL rejects many hrefs real sites write (spaces, raw CJK), and is slow on the thousands of
/// links of a table of contents; this works on the text and leaves percent-encoding to the transport.
public enum URLReference {
    /// The absolute form of `reference` seen from `base`, or nil when neither gives an absolute URL.
    /// Leading and trailing whitespace (common in hand-written hrefs) is ignored.
    public static func resolve(_ reference: String, against base: String) -> String? {
        let trimmed = reference.trimmingASCIIWhitespace()
        if let parts = Parts(trimmed), parts.scheme != nil {
            return parts.withPath(removeDotSegments(parts.path)).text
        }
        guard let baseParts = Parts(base.trimmingASCIIWhitespace()), let scheme = baseParts.scheme else { return nil }
        guard let ref = Parts(trimmed) else { return nil }
        var target = Parts(scheme: scheme, authority: nil, path: "", query: nil, fragment: ref.fragment)
        if let authority = ref.authority {
            target.authority = authority
            target.path = removeDotSegments(ref.path)
            target.query = ref.query
        } else {
            target.authority = baseParts.authority
            if ref.path.isEmpty {
                target.path = baseParts.path
                target.query = ref.query ?? baseParts.query
            } else {
                if ref.path.hasPrefix("/") {
                    target.path = removeDotSegments(ref.path)
                } else {
                    target.path = removeDotSegments(merge(base: baseParts, path: ref.path))
                }
                target.query = ref.query
            }
        }
        return target.text
    }

    /// Whether `text` is an absolute http or https URL.
    public static func isHTTP(_ text: String) -> Bool {
        guard let scheme = Parts(text)?.scheme?.lowercased() else { return false }
        return scheme == "http" || scheme == "https"
    }

    private static func merge(base: Parts, path: String) -> String {
        if base.authority != nil && base.path.isEmpty { return "/" + path }
        guard let slash = base.path.lastIndex(of: "/") else { return path }
        return String(base.path[...slash]) + path
    }

    static func removeDotSegments(_ path: String) -> String {
        if !path.contains(".") { return path }
        var output: [Substring] = []
        let segments = path.split(separator: "/", omittingEmptySubsequences: false)
        let absolute = path.hasPrefix("/")
        for (index, segment) in segments.enumerated() {
            if absolute && index == 0 { continue }
            let isLast = index == segments.count - 1
            switch segment {
            case ".":
                if isLast { output.append("") }
            case "..":
                if !output.isEmpty { output.removeLast() }
                if isLast { output.append("") }
            default:
                output.append(segment)
            }
        }
        return (absolute ? "/" : "") + output.joined(separator: "/")
    }

    /// The five components of a URI reference.
    struct Parts {
        var scheme: String?
        var authority: String?
        var path: String
        var query: String?
        var fragment: String?

        init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
            self.scheme = scheme
            self.authority = authority
            self.path = path
            self.query = query
            self.fragment = fragment
        }

        init?(_ text: String) {
            var rest = Substring(text)
            if let hash = rest.firstIndex(of: "#") {
                fragment = String(rest[rest.index(after: hash)...])
                rest = rest[..<hash]
            }
            if let question = rest.firstIndex(of: "?") {
                query = String(rest[rest.index(after: question)...])
                rest = rest[..<question]
            }
            if let colon = rest.firstIndex(of: ":"), Self.isScheme(rest[..<colon]) {
                scheme = rest[..<colon].lowercased()
                rest = rest[rest.index(after: colon)...]
            }
            if rest.hasPrefix("//") {
                rest = rest.dropFirst(2)
                let end = rest.firstIndex(of: "/") ?? rest.endIndex
                authority = String(rest[..<end])
                rest = rest[end...]
            }
            path = String(rest)
        }

        func withPath(_ newPath: String) -> Parts {
            var copy = self
            copy.path = newPath
            return copy
        }

        var text: String {
            var result = ""
            if let scheme { result += scheme + ":" }
            if let authority {
                result += "//" + authority
                if !path.isEmpty && !path.hasPrefix("/") { result += "/" }
            }
            result += path
            if let query { result += "?" + query }
            if let fragment { result += "#" + fragment }
            return result
        }

        private static func isScheme(_ text: Substring) -> Bool {
            guard let first = text.unicodeScalars.first, first.isASCIILetter else { return false }
            return text.unicodeScalars.allSatisfy { $0.isASCIILetter || ("0"..."9").contains($0) || $0 == "+" || $0 == "-" || $0 == "." }
        }
    }
}

extension Unicode.Scalar {
    var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

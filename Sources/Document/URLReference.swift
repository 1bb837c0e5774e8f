import Glibc

/// Resolves links the way a browser does (RFC 3986 section 5.2), on strings.
///
/// Foundation's URL rejects many hrefs real sites write (spaces, raw CJK), and is slow on the thousands of
/// links of a table of contents; this works on the text and leaves percent-encoding to the transport.
public enum URLReference {
    /// The absolute form of `reference` seen from `base`, or nil when neither gives an absolute URL.
    /// Leading and trailing whitespace (common in hand-written hrefs) is ignored.
    public static func resolve(_ reference: String, against base: String) -> String? {
        Base(base)?.resolve(reference) ?? Base(reference)?.resolve("")
    }

    /// A base URL parsed once, for resolving the thousands of links of one page. A class, so handing it to
    /// each chapter's reader costs one reference count rather than one per component string.
    public final class Base: Sendable {
        private let parts: Parts
        /// `scheme://authority`, for the common root-relative link.
        private let origin: String?
        /// `scheme://authority/dir/`, for the common same-directory link.
        private let directory: String?

        /// Parses `text`; nil unless it is absolute (has a scheme).
        public init?(_ text: String) {
            guard let parts = Parts(text.trimmingASCIIWhitespace()), let scheme = parts.scheme else { return nil }
            self.parts = parts
            if let authority = parts.authority, !hasDotSegment(parts.path) {
                let origin = scheme + "://" + authority
                self.origin = origin
                let slash = parts.path.utf8.lastIndex(of: UInt8(ascii: "/"))
                directory = origin + (slash.map { String(parts.path[...$0]) } ?? "/")
            } else {
                origin = nil
                directory = nil
            }
        }

        /// The absolute form of `reference` (whitespace around it ignored).
        public func resolve(_ reference: String) -> String? {
            let trimmed = reference.trimmingASCIIWhitespace()
            if let fast = fastResolve(trimmed) { return fast }
            guard let ref = Parts(trimmed) else { return nil }
            if ref.scheme != nil { return ref.withPath(removeDotSegments(ref.path)).text }
            var target = Parts(scheme: parts.scheme, authority: nil, path: "", query: nil, fragment: ref.fragment)
            if let authority = ref.authority {
                target.authority = authority
                target.path = removeDotSegments(ref.path)
                target.query = ref.query
            } else {
                target.authority = parts.authority
                if ref.path.isEmpty {
                    target.path = parts.path
                    target.query = ref.query ?? parts.query
                } else {
                    if ref.path.utf8.first == UInt8(ascii: "/") {
                        target.path = removeDotSegments(ref.path)
                    } else {
                        target.path = removeDotSegments(merge(base: parts, path: ref.path))
                    }
                    target.query = ref.query
                }
            }
            return target.text
        }

        /// Links a TOC is full of (`/book/1/2.html`, `2.html`, `https://…/2.html`) without splitting them into
        /// parts; nil for anything that needs the general algorithm.
        private func fastResolve(_ reference: String) -> String? {
            var copy = reference
            return copy.withUTF8(fastResolve(utf8:))
        }

        /// `fastResolve` of a reference given as UTF-8 bytes (already trimmed), making only the result string:
        /// the per-chapter path of the TOC.
        package func fastResolve(utf8 reference: UnsafeBufferPointer<UInt8>) -> String? {
            guard let first = reference.first, !hasDotSegment(reference) else { return nil }
            if first == UInt8(ascii: "/") {
                guard let origin, reference.count < 2 || reference[1] != UInt8(ascii: "/") else { return nil }
                return Self.joining(origin, reference)
            }
            if first == UInt8(ascii: "h"), Self.hasPrefix(reference, "https://") || Self.hasPrefix(reference, "http://") {
                return String(decoding: reference, as: UTF8.self)
            }
            guard let directory, first != UInt8(ascii: "?"), first != UInt8(ascii: "#") else { return nil }
            // A colon before any slash would make the reference a scheme of its own.
            for byte in reference {
                if byte == UInt8(ascii: ":") { return nil }
                if byte == UInt8(ascii: "/") || byte == UInt8(ascii: "?") || byte == UInt8(ascii: "#") { break }
            }
            return Self.joining(directory, reference)
        }

        static func hasPrefix(_ bytes: UnsafeBufferPointer<UInt8>, _ prefix: StaticString) -> Bool {
            guard prefix.utf8CodeUnitCount <= bytes.count else { return false }
            for index in 0..<prefix.utf8CodeUnitCount where bytes[index] != prefix.utf8Start[index] { return false }
            return true
        }

        /// `head` followed by `tail`, built in one allocation.
        private static func joining(_ head: String, _ tail: UnsafeBufferPointer<UInt8>) -> String {
            func join(_ headBytes: UnsafeBufferPointer<UInt8>) -> String {
                String(unsafeUninitializedCapacity: headBytes.count + tail.count) { buffer in
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[..<headBytes.count]).initialize(from: headBytes)
                    _ = UnsafeMutableBufferPointer(rebasing: buffer[headBytes.count...]).initialize(from: tail)
                    return headBytes.count + tail.count
                }
            }
            // Borrowed when the string is contiguous (a native one always is), so no copy is counted.
            if let joined = head.utf8.withContiguousStorageIfAvailable(join) { return joined }
            var copy = head
            return copy.withUTF8(join)
        }
    }

    /// `url` without its `#fragment`: the identity of a page for "visited" checks and library keys.
    public static func withoutFragment(_ url: String) -> String {
        // On the contiguous bytes, borrowed (no copy of the string): the generic UTF8View search showed up in the
        // profile of a 5,000-chapter TOC, and so did the reference counting of a copy.
        let found = url.utf8.withContiguousStorageIfAvailable { bytes in fragmentStart(in: bytes) }
        guard let hash = found ?? url.utf8.firstIndex(of: UInt8(ascii: "#")).map({ url.utf8.distance(from: url.utf8.startIndex, to: $0) })
        else { return url }
        return String(decoding: url.utf8.prefix(hash), as: UTF8.self)
    }

    /// The offset of the first `#` in `bytes` (where a URL's fragment starts), found with memchr; nil when
    /// there is none.
    package static func fragmentStart(in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard let base = bytes.baseAddress, let hit = memchr(base, Int32(UInt8(ascii: "#")), bytes.count) else { return nil }
        return base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
    }

    /// Whether `url` starts with `http://` or `https://` as written (lower case): the check almost every resolved
    /// link passes, made on its bytes without parsing it. False says nothing: `isHTTP` decides then.
    public static func hasLowercaseHTTPScheme(_ url: String) -> Bool {
        url.utf8.withContiguousStorageIfAvailable { bytes in
            Base.hasPrefix(bytes, "https://") || Base.hasPrefix(bytes, "http://")
        } ?? (url.hasPrefix("https://") || url.hasPrefix("http://"))
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
        if !hasDotSegment(path) { return path }
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

    /// Whether any `/`-separated segment of `path` is `.` or `..` (most paths have none, only `.html`).
    private static func hasDotSegment(_ path: String) -> Bool {
        var copy = path
        return copy.withUTF8(hasDotSegment)
    }

    /// Whether a segment of `path` (between slashes, or at an end) is `.` or `..`. Only the dots are looked at
    /// (found with memchr): this runs on every chapter link of a TOC, and most links hold one dot (`.html`).
    private static func hasDotSegment(_ path: UnsafeBufferPointer<UInt8>) -> Bool {
        guard let base = path.baseAddress else { return false }
        let count = path.count
        var index = 0
        while index < count, let hit = memchr(base + index, Int32(UInt8(ascii: ".")), count - index) {
            let dot = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
            var end = dot + 1
            if end < count, path[end] == UInt8(ascii: ".") { end += 1 }
            if dot == 0 || path[dot - 1] == UInt8(ascii: "/"), end == count || path[end] == UInt8(ascii: "/") { return true }
            index = end
        }
        return false
    }

    /// The five components of a URI reference.
    package struct Parts {
        package var scheme: String?
        package var authority: String?
        package var path: String
        var query: String?
        var fragment: String?

        init(scheme: String?, authority: String?, path: String, query: String?, fragment: String?) {
            self.scheme = scheme
            self.authority = authority
            self.path = path
            self.query = query
            self.fragment = fragment
        }

        /// Splits a reference on its UTF-8 bytes (hrefs are mostly ASCII; walking Characters was the
        /// slowest part of reading a large TOC).
        package init?(_ text: String) {
            var copy = text
            self = copy.withUTF8 { Parts(bytes: $0) }
        }

        private init(bytes: UnsafeBufferPointer<UInt8>) {
            func string(_ range: Range<Int>) -> String {
                String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
            }
            var end = bytes.count
            if let hash = bytes.firstIndex(of: UInt8(ascii: "#")) {
                fragment = string((hash + 1)..<end)
                end = hash
            }
            if let question = bytes[..<end].firstIndex(of: UInt8(ascii: "?")) {
                query = string((question + 1)..<end)
                end = question
            }
            var start = 0
            if let colon = bytes[..<end].firstIndex(of: UInt8(ascii: ":")), Self.isScheme(bytes[..<colon]) {
                scheme = string(0..<colon).lowercased()
                start = colon + 1
            }
            if end - start >= 2, bytes[start] == UInt8(ascii: "/"), bytes[start + 1] == UInt8(ascii: "/") {
                let authorityStart = start + 2
                let authorityEnd = bytes[authorityStart..<end].firstIndex(of: UInt8(ascii: "/")) ?? end
                authority = string(authorityStart..<authorityEnd)
                start = authorityEnd
            }
            path = string(start..<end)
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

        private static func isScheme(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> Bool {
            guard let first = bytes.first, Self.isLetter(first) else { return false }
            return bytes.allSatisfy { byte in
                Self.isLetter(byte) || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
                    || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ".")
            }
        }

        private static func isLetter(_ byte: UInt8) -> Bool {
            (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
        }
    }
}

extension Unicode.Scalar {
    package var isASCIILetter: Bool { ("a"..."z").contains(self) || ("A"..."Z").contains(self) }
}

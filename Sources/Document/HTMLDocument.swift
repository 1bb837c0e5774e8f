import BookRuleLocking
import CLibXML2
#if canImport(Glibc)
import Glibc
#endif
import BookRuleJSON

/// libxml2 must be initialised once before documents are parsed from several threads.
let libxml2Initialized: Bool = {
    xmlInitParser()
    bookrule_set_parser_max_depth(UInt32(HTMLDocument.maxDepth))
    return true
}()

/// A parsed HTML page: the libxml2 document, the charset it was decoded with, and the URL its links resolve
/// against.
///
/// The document is not changed after parsing, so it may be read (XPath, text) from several tasks at once, with
/// two exceptions made by its one owner before anything else reads it: `detach` (a script's own parsed
/// document) and `setText` (web-font decoding of a freshly fetched page, before its rules run; `sourceText`
/// keeps the bytes as fetched). It is freed when the last reference (including every `HTMLNode`) goes away.
public final class HTMLDocument: @unchecked Sendable {
    /// Owned libxml2 document; freed in `deinit`; changed only by `detach` and `setText` (above).
    let pointer: htmlDocPtr
    /// The URL the page was fetched from (after redirects).
    public let url: String
    /// What relative links resolve against: `<base href>` resolved against `url`, else `url`.
    public let baseURL: String
    /// How the bytes were decoded.
    public let charset: CharsetDecision
    /// Whether libxml2 stopped before the end of the page (markup nested deeper than `maxDepth` levels):
    /// what follows that point is not in the document.
    public let isTruncated: Bool
    /// The page as UTF-8 bytes (what libxml2 parsed), kept for regex rules that run on the raw markup.
    private let utf8: [UInt8]
    /// XPath contexts for this document, reused across evaluations: creating one registers every XPath
    /// function in a fresh hash table, which cost more than the evaluation itself on a 5,000-chapter TOC.
    /// A context is taken out while one thread uses it, so none is shared.
    private let contextPool = Locked<ContextPool>(ContextPool())

    /// Subtrees taken out with `detach` (only documents a script parsed itself are changed): libxml2 frees
    /// only what is still in the tree, so these are freed in `deinit`, while the document that owns their
    /// names still exists, and not before, since any node value handed out keeps the document alive.
    private let detached = Locked<DetachedPointers>(DetachedPointers())

    /// The body parsed as JSON, when it is JSON (an API answer rather than a page): JSONPath rules read this.
    public let json: JSONValue?

    /// The decoded page source, for regex rules that run on raw markup.
    public var sourceText: String { String(decoding: utf8, as: UTF8.self) }

    /// How many U+FFFD replacement characters the decoded source has: bytes the charset could not decode
    /// (or a page that already had them).
    public var replacementCharacterCount: Int {
        // U+FFFD is EF BF BD in UTF-8; memchr finds the rare EF bytes of a large page at memory speed.
        utf8.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress, buffer.count >= 3 else { return 0 }
            var count = 0
            var offset = 0
            let end = buffer.count - 2
            while offset < end, let found = memchr(base + offset, 0xEF, end - offset) {
                let index = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if buffer[index + 1] == 0xBF, buffer[index + 2] == 0xBD { count += 1 }
                offset = index + 1
            }
            return count
        }
    }

    /// The decoded page source's size in bytes.
    public var sourceByteCount: Int { utf8.count }

    /// How deep markup may nest before libxml2 stops reading (its default is 256, which real pages full of
    /// unclosed tags exceed). Nothing in bookrule walks the tree recursively, so depth costs no stack.
    public static let maxDepth = 4096

    /// libxml2 parser options: tolerant of broken markup, silent, and never touching the network.
    static let parseOptions = Int32(HTML_PARSE_RECOVER.rawValue | HTML_PARSE_NOERROR.rawValue
        | HTML_PARSE_NOWARNING.rawValue | HTML_PARSE_NONET.rawValue | HTML_PARSE_IGNORE_ENC.rawValue
        | HTML_PARSE_COMPACT.rawValue)

    /// Parses page bytes.
    /// - Parameters:
    ///   - bytes: the body exactly as received.
    ///   - url: the final URL of the response, for resolving links.
    ///   - contentType: the response's Content-Type header, consulted for a charset.
    ///   - charsetOption: the source's charset option for this request, which wins over all but `savedCharset`.
    ///   - savedCharset: the charset a saved page's index says its file is in (`HTTPResponse.savedCharset`).
    public convenience init(bytes: [UInt8], url: String, contentType: String? = nil, charsetOption: String? = nil,
                            savedCharset: String? = nil) throws(DocumentError) {
        let decision: CharsetDecision
        do {
            decision = try CharsetDetector.decide(bytes: bytes, sourceOption: charsetOption, contentType: contentType,
                                                  savedCharset: savedCharset)
        } catch {
            throw DocumentError.charset(error)
        }
        try self.init(bytes: bytes, url: url, charset: decision)
    }

    /// Pages at least this large are decoded and parsed on a thread of their own by `parsed(bytes:…)`: a
    /// multi-megabyte page takes tens of milliseconds, which would hold one of the cooperative pool's threads.
    /// Smaller pages parse where they are: a 400 KB page of 5,000 chapters parses in about 5 ms, no longer than
    /// reading its rules takes on the same thread afterwards, and a new thread per page cost more than that
    /// (its start, the wake-ups, and libxml2's tree freed from another thread's heap: docs/performance.md).
    package static let ownThreadBytes = 1024 * 1024

    /// `init(bytes:url:contentType:charsetOption:savedCharset:)` for async callers: a page of `ownThreadBytes` or more is
    /// decoded and parsed on a thread of its own (inline when no thread can be started).
    public static func parsed(bytes: [UInt8], url: String, contentType: String? = nil, charsetOption: String? = nil,
                              savedCharset: String? = nil) async throws(DocumentError) -> HTMLDocument {
        let parse = { @Sendable () -> Result<HTMLDocument, DocumentError> in
            Result { () throws(DocumentError) -> HTMLDocument in
                try HTMLDocument(bytes: bytes, url: url, contentType: contentType, charsetOption: charsetOption,
                                 savedCharset: savedCharset)
            }
        }
        if bytes.count >= ownThreadBytes, let result = await BlockingWorkThread.run(parse) { return try result.get() }
        return try parse().get()
    }

    /// Parses page bytes with a charset already decided.
    public init(bytes: [UInt8], url: String, charset: CharsetDecision) throws(DocumentError) {
        _ = libxml2Initialized
        let utf8: [UInt8]
        do {
            if charset.charset == "UTF-8" && (charset.bytesAreValidUTF8 || UTF8Validation.check(bytes) != .invalid) {
                utf8 = bytes
            } else {
                utf8 = try TextTranscoder.utf8Bytes(from: bytes, charset: charset.charset)
            }
        } catch {
            throw DocumentError.charset(error)
        }
        // An empty buffer makes libxml2 return no document at all; an empty page is still a page.
        let input = utf8.isEmpty ? Array("<html></html>".utf8) : Self.breakEndTagsAsBreaks(utf8)
        guard let context = htmlNewParserCtxt() else { throw DocumentError.unparsable(url: url) }
        defer { htmlFreeParserCtxt(context) }
        let parsed: htmlDocPtr? = input.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { chars in
                htmlCtxtReadMemory(context, chars.baseAddress, Int32(clamping: chars.count), url, "UTF-8", Self.parseOptions)
            }
        }
        guard let parsed else { throw DocumentError.unparsable(url: url) }
        pointer = parsed
        // libxml2 recovers from broken markup silently, but gives up (keeping what it had) on markup nested
        // deeper than `maxDepth` elements; the rest of such a page is missing and the user should know.
        isTruncated = context.pointee.disableSAX != 0
        self.url = url
        self.charset = charset
        self.utf8 = utf8
        let first = utf8.first { $0 != 0x20 && $0 != 0x09 && $0 != 0x0A && $0 != 0x0D }
        if first == UInt8(ascii: "{") || first == UInt8(ascii: "[") {
            json = (try? JSONParser.parse(utf8))?.value
        } else {
            json = nil
        }
        self.baseURL = Self.baseHref(of: parsed).flatMap { URLReference.resolve($0, against: url) } ?? url
    }

    deinit {
        contextPool.withLock { pool in
            for context in pool.contexts { xmlXPathFreeContext(context) }
            pool.contexts.removeAll()
        }
        detached.withLock { detached in
            for node in detached.nodes { xmlFreeNode(node) }
            detached.nodes.removeAll()
        }
        xmlFreeDoc(pointer)
    }

    /// Takes `node` and its subtree out of this document (jsoup's `remove()` on a document a script parsed);
    /// handles to it stay readable until the document goes.
    package func detach(_ node: HTMLNode) {
        guard node.document === self, node.pointer.pointee.parent != nil else { return }
        detached.withLock { detached in
            xmlUnlinkNode(node.pointer)
            detached.nodes.append(node.pointer)
        }
    }

    /// Replaces the text of the text node `node` (web-font decoding rewrites the characters a page's font draws
    /// as others before rules read them); nothing for another kind of node or another document's.
    package func setText(of node: HTMLNode, to text: String) {
        guard node.document === self, node.kind == .text else { return }
        xmlNodeSetContent(node.pointer, text)
    }

    /// Runs `body` with an XPath context for this document that no other thread is using.
    func withXPathContext<T>(_ body: (xmlXPathContextPtr?) -> T) -> T {
        let context = contextPool.withLock { $0.contexts.popLast() } ?? XPathRegexFunction.newContext(pointer)
        defer {
            if let context {
                context.pointee.node = nil
                contextPool.withLock { pool in
                    if pool.contexts.count < 8 { pool.contexts.append(context) } else { xmlXPathFreeContext(context) }
                }
            }
        }
        return body(context)
    }

    /// The document node, as the context for page-level rules.
    public var root: HTMLNode {
        HTMLNode(document: self, pointer: UnsafeMutableRawPointer(pointer).assumingMemoryBound(to: xmlNode.self))
    }

    /// The version of libxml2 this process runs with.
    public static var libxml2Version: String { String(cString: bookrule_libxml2_version()) }

    /// `</br>` read as `<br>`, as HTML5 parsers (browsers, jsoup) do; libxml2 drops it, joining the lines it
    /// separates (Jieqi-template sites end their link line in `#content` with `</br>`). The raw text kept for
    /// regex rules is not changed.
    static func breakEndTagsAsBreaks(_ bytes: [UInt8]) -> [UInt8] {
        // `</br>`, `</br >`, `</br/>`: `</br` followed by anything that does not make it another tag (`</bra>`),
        // up to the next `>`. Found with memchr, as this runs over every page.
        let found: [Range<Int>] = bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return [] }
            var ranges: [Range<Int>] = []
            var index = 0
            let count = buffer.count
            while index + 4 < count, let hit = memchr(base + index, Int32(UInt8(ascii: "<")), count - index - 4) {
                let at = base.distance(to: hit.assumingMemoryBound(to: UInt8.self))
                index = at + 1
                guard buffer[at + 1] == UInt8(ascii: "/"), buffer[at + 2] | 0x20 == UInt8(ascii: "b"),
                      buffer[at + 3] | 0x20 == UInt8(ascii: "r") else { continue }
                let next = buffer[at + 4]
                guard next == UInt8(ascii: ">") || next == UInt8(ascii: "/") || next == 0x20 || next == 0x09
                        || next == 0x0A || next == 0x0D || next == 0x0C else { continue }
                var close = at + 4
                while close < count, buffer[close] != UInt8(ascii: ">") { close += 1 }
                guard close < count else { break }
                ranges.append(at..<(close + 1))
                index = close + 1
            }
            return ranges
        }
        if found.isEmpty { return bytes }
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var copied = 0
        for range in found {
            output.append(contentsOf: bytes[copied..<range.lowerBound])
            output.append(contentsOf: [UInt8(ascii: "<"), UInt8(ascii: "b"), UInt8(ascii: "r"), UInt8(ascii: ">")])
            copied = range.upperBound
        }
        output.append(contentsOf: bytes[copied...])
        return output
    }

    /// The first `<base href>` inside `<head>`, if any.
    private static func baseHref(of document: htmlDocPtr) -> String? {
        guard let html = xmlDocGetRootElement(document) else { return nil }
        var child = html.pointee.children
        while let node = child {
            if node.pointee.type == XML_ELEMENT_NODE, HTMLNode.name(of: node) == "head" {
                var item = node.pointee.children
                while let element = item {
                    if element.pointee.type == XML_ELEMENT_NODE, HTMLNode.name(of: element) == "base",
                       let href = HTMLNode.attribute("href", of: element), !href.isEmpty {
                        return href
                    }
                    item = element.pointee.next
                }
            }
            child = node.pointee.next
        }
        return nil
    }
}

/// Idle XPath contexts of one document. The pointers are only ever used by the thread that took them out.
private struct ContextPool: @unchecked Sendable {
    var contexts: [xmlXPathContextPtr] = []
}

/// Nodes `HTMLDocument.detach` took out of the tree, freed with the document.
private struct DetachedPointers: @unchecked Sendable {
    var nodes: [xmlNodePtr] = []
}

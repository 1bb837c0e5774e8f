import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BookRuleDocument
import BookRuleJSON

/// A HAR 1.2 recording (HTTP Archive): the fixtures `bookrule test` replays and `--record` writes.
///
/// Only the parts the engine reads and writes are modelled; files are read with the project's `JSONParser`. Loading is lenient the way a fixture from a browser
/// needs: unknown and `_`-prefixed private fields (Chromium's `_initiator`, `_priority`, `pages`, …) are ignored,
/// an absent `content.text` gives a nil body, and `encoding: "base64"` bodies are decoded. Bodies are kept as raw
/// bytes so a page in GBK or Big5 replays byte-exact: on writing, a body that is valid UTF-8 becomes `text`,
/// anything else becomes base64 with `encoding: "base64"`.
public struct HARRecording: Sendable, Hashable {
    /// `log.version`; "1.2" for recordings this type writes.
    public var version: String
    /// `log.creator`: the tool that made the recording.
    public var creator: Creator
    /// `log.entries`: one request/response exchange each, in the order they were made.
    public var entries: [Entry]

    /// Creates an empty (or pre-filled) recording; `--record` starts from this and `append`s each exchange.
    public init(
        version: String = "1.2",
        creator: Creator = Creator(name: "bookrule", version: "1"),
        entries: [Entry] = []
    ) {
        self.version = version
        self.creator = creator
        self.entries = entries
    }

    /// `log.creator`: names the program that wrote the file, so a reader knows where a fixture came from.
    public struct Creator: Sendable, Hashable {
        /// The program's name, e.g. "bookrule" or "WebInspector" (Chromium DevTools).
        public var name: String
        /// The program's version string.
        public var version: String

        /// Creates a creator record.
        public init(name: String, version: String) {
            self.name = name
            self.version = version
        }
    }

    /// A `{name, value}` pair as used by `queryString` (kept in order, repeats allowed, values as written).
    public struct NameValue: Sendable, Hashable {
        /// The parameter name.
        public var name: String
        /// The parameter value.
        public var value: String

        /// Creates a pair.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// A cookie as HAR lists it for a request or response; kept so re-written fixtures don't lose it.
    public struct Cookie: Sendable, Hashable {
        /// The cookie name.
        public var name: String
        /// The cookie value.
        public var value: String
        /// The `path` attribute, if recorded.
        public var path: String?
        /// The `domain` attribute, if recorded.
        public var domain: String?
        /// The `expires` attribute (ISO 8601 text), if recorded.
        public var expires: String?
        /// The `httpOnly` flag, if recorded.
        public var httpOnly: Bool?
        /// The `secure` flag, if recorded.
        public var secure: Bool?

        /// Creates a cookie record.
        public init(
            name: String, value: String, path: String? = nil, domain: String? = nil, expires: String? = nil,
            httpOnly: Bool? = nil, secure: Bool? = nil
        ) {
            self.name = name
            self.value = value
            self.path = path
            self.domain = domain
            self.expires = expires
            self.httpOnly = httpOnly
            self.secure = secure
        }
    }

    /// One exchange: `log.entries[]`.
    public struct Entry: Sendable, Hashable {
        /// `startedDateTime`, ISO 8601 text kept as written (tools differ in fraction digits and time zones).
        public var startedDateTime: String
        /// `time`: total elapsed milliseconds.
        public var time: Double
        /// The request as sent.
        public var request: Request
        /// The response as received.
        public var response: Response
        /// `cache`: what the browser cache held; bookrule writes it empty.
        public var cache: Cache
        /// `timings`: where the time went.
        public var timings: Timings
        /// `comment`: free text, e.g. why bookrule inferred a redirect entry.
        public var comment: String?

        /// Creates an entry.
        public init(
            startedDateTime: String, time: Double, request: Request, response: Response, cache: Cache = Cache(),
            timings: Timings, comment: String? = nil
        ) {
            self.startedDateTime = startedDateTime
            self.time = time
            self.request = request
            self.response = response
            self.cache = cache
            self.timings = timings
            self.comment = comment
        }

        /// `startedDateTime` parsed as a date, or nil when it is not ISO 8601 with a time zone.
        public var startedAt: Date? { DateCodec.iso8601Date(startedDateTime) }
    }

    /// `entry.request`.
    public struct Request: Sendable, Hashable {
        /// The method, e.g. "GET".
        public var method: String
        /// The absolute URL, without fragment.
        public var url: String
        /// e.g. "HTTP/1.1", "h2" or "http/2.0".
        public var httpVersion: String
        /// Request header fields in order (HTTP/2 recordings include pseudo-headers such as `:authority`).
        public var headers: [HTTPHeader]
        /// The URL's query parameters, as written.
        public var queryString: [NameValue]
        /// Cookies sent.
        public var cookies: [Cookie]
        /// Bytes of the request head, or -1 when unknown.
        public var headersSize: Int
        /// Bytes of the request body, or -1 when unknown.
        public var bodySize: Int
        /// The body of a POST, if any.
        public var postData: PostData?

        /// Creates a request record.
        public init(
            method: String, url: String, httpVersion: String = "HTTP/1.1", headers: [HTTPHeader] = [],
            queryString: [NameValue] = [], cookies: [Cookie] = [], headersSize: Int = -1, bodySize: Int = -1,
            postData: PostData? = nil
        ) {
            self.method = method
            self.url = url
            self.httpVersion = httpVersion
            self.headers = headers
            self.queryString = queryString
            self.cookies = cookies
            self.headersSize = headersSize
            self.bodySize = bodySize
            self.postData = postData
        }
    }

    /// `request.postData`. HAR 1.2 has no `encoding` here; bookrule writes `encoding: "base64"` (and reads it, or
    /// `_encoding`) for a body that is not valid UTF-8, so a form posted in GBK survives byte-exact.
    public struct PostData: Sendable, Hashable {
        /// The body's Content-Type.
        public var mimeType: String
        /// The raw body, or nil when the recording has no `text` (e.g. only `params`).
        public var body: [UInt8]?

        /// Creates a post-data record.
        public init(mimeType: String, body: [UInt8]?) {
            self.mimeType = mimeType
            self.body = body
        }
    }

    /// `entry.response`.
    public struct Response: Sendable, Hashable {
        /// The status code; 0 when the browser recorded a failed request (no response).
        public var status: Int
        /// The reason phrase, e.g. "OK".
        public var statusText: String
        /// e.g. "HTTP/1.1" or "h2".
        public var httpVersion: String
        /// Response header fields in order.
        public var headers: [HTTPHeader]
        /// Cookies set.
        public var cookies: [Cookie]
        /// The body and its type.
        public var content: Content
        /// `redirectURL`: the Location target of a 3xx, or "".
        public var redirectURL: String
        /// Bytes of the response head, or -1 when unknown.
        public var headersSize: Int
        /// Bytes of the body as transferred, or -1 when unknown.
        public var bodySize: Int

        /// Creates a response record.
        public init(
            status: Int, statusText: String = "", httpVersion: String = "HTTP/1.1", headers: [HTTPHeader] = [],
            cookies: [Cookie] = [], content: Content, redirectURL: String = "", headersSize: Int = -1,
            bodySize: Int = -1
        ) {
            self.status = status
            self.statusText = statusText
            self.httpVersion = httpVersion
            self.headers = headers
            self.cookies = cookies
            self.content = content
            self.redirectURL = redirectURL
            self.headersSize = headersSize
            self.bodySize = bodySize
        }
    }

    /// `response.content`. The body is stored decoded to bytes; whether it is written as text or base64 is
    /// decided when writing, so the bytes are what round-trips, not the JSON form.
    public struct Content: Sendable, Hashable {
        /// `size`: length of the decoded body in bytes.
        public var size: Int
        /// `compression`: bytes saved by content-encoding, if recorded.
        public var compression: Int?
        /// `mimeType`: the Content-Type, possibly with charset.
        public var mimeType: String
        /// The body bytes, or nil when the recording has no `text` (DevTools omits it for some entries).
        public var body: [UInt8]?

        /// Creates a content record.
        public init(size: Int, compression: Int? = nil, mimeType: String, body: [UInt8]?) {
            self.size = size
            self.compression = compression
            self.mimeType = mimeType
            self.body = body
        }
    }

    /// `entry.cache`: state of the browser cache before and after the request (bookrule records none).
    public struct Cache: Sendable, Hashable {
        /// The cache entry before the request, if any.
        public var beforeRequest: CacheState?
        /// The cache entry after the request, if any.
        public var afterRequest: CacheState?

        /// Creates a cache record; the default is the empty `{}` most recordings hold.
        public init(beforeRequest: CacheState? = nil, afterRequest: CacheState? = nil) {
            self.beforeRequest = beforeRequest
            self.afterRequest = afterRequest
        }
    }

    /// One side of `entry.cache`.
    public struct CacheState: Sendable, Hashable {
        /// When the cache entry expires, if known.
        public var expires: String?
        /// When it was last used.
        public var lastAccess: String
        /// Its ETag.
        public var eTag: String
        /// How many times it was used.
        public var hitCount: Int

        /// Creates a cache state.
        public init(expires: String? = nil, lastAccess: String, eTag: String, hitCount: Int) {
            self.expires = expires
            self.lastAccess = lastAccess
            self.eTag = eTag
            self.hitCount = hitCount
        }
    }

    /// `entry.timings`: milliseconds spent sending, waiting for the first byte and receiving (-1 when unknown).
    public struct Timings: Sendable, Hashable {
        /// Time to send the request.
        public var send: Double
        /// Time waiting for the response to start.
        public var wait: Double
        /// Time reading the response.
        public var receive: Double

        /// Creates timings.
        public init(send: Double, wait: Double, receive: Double) {
            self.send = send
            self.wait = wait
            self.receive = receive
        }
    }
}

/// Why a HAR file could not be loaded or written; each description names the file and the problem.
public enum HARError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read (missing, unreadable); `reason` is the system's message.
    case cannotRead(path: String, reason: String)
    /// The file is not JSON; `reason` gives the line, column and problem where the parser stopped.
    case notJSON(path: String, reason: String)
    /// The JSON is not the HAR shape expected. `entry` is 1-based (nil for fields outside `log.entries`),
    /// `field` is a dotted path such as `response.content.text`, `problem` says what is wrong with it, and
    /// `line` is where in the file (the field itself, or its enclosing object when the field is missing).
    case invalid(path: String, entry: Int?, field: String, problem: String, line: Int?)
    /// The file could not be written; `reason` is the system's message. The old file, if any, is untouched.
    case cannotWrite(path: String, reason: String)

    /// A message of the form `path: entry 3: response.content.text is not valid base64 (line 120)`.
    public var description: String {
        switch self {
        case .cannotRead(let path, let reason):
            return "\(path): cannot read the HAR file: \(reason)"
        case .notJSON(let path, let reason):
            return "\(path): not a HAR file: invalid JSON at \(reason)"
        case .invalid(let path, let entry, let field, let problem, let line):
            let place = line.map { " (line \($0))" } ?? ""
            if let entry { return "\(path): entry \(entry): \(field) \(problem)\(place)" }
            return "\(path): \(field) \(problem)\(place)"
        case .cannotWrite(let path, let reason):
            return "\(path): cannot write the HAR file: \(reason)"
        }
    }
}

// MARK: - Recording exchanges

extension HARRecording {
    /// Appends one exchange made through a transport, as `--record` does after each request.
    ///
    /// A transport follows redirects and reports only the final response, so when `response.url` differs from
    /// `request.url` (beyond percent-encoding and fragment) a redirect entry is inferred first — `302` for GET,
    /// `303` for other methods, with `Location` set to the final URL — and the response is recorded under the final
    /// URL with GET. Replay then reports the same final URL. The real intermediate hops are not known.
    public mutating func append(request: HTTPRequest, response: HTTPResponse, startedAt: Date, duration: Duration) {
        let started = DateCodec.iso8601(startedAt)
        let components = duration.components
        let milliseconds = max(0, Double(components.seconds) * 1000 + Double(components.attoseconds) / 1e15)
        let method = request.method.uppercased()
        var finalRequest = request
        finalRequest.method = method
        if !response.url.isEmpty,
           URLEncoding.normalizedForComparison(response.url) != URLEncoding.normalizedForComparison(request.url)
        {
            let status = method == "GET" || method == "HEAD" ? 302 : 303
            let redirect = Response(
                status: status,
                statusText: HARRecording.reasonPhrase(status),
                headers: [HTTPHeader("Location", response.url)],
                content: Content(size: 0, mimeType: "", body: []),
                redirectURL: response.url,
                bodySize: 0
            )
            entries.append(Entry(
                startedDateTime: started, time: 0, request: Self.requestRecord(request, method: method),
                response: redirect, timings: Timings(send: 0, wait: 0, receive: 0),
                comment: "redirect inferred by bookrule: the transport reported final URL \(response.url)"
            ))
            finalRequest = HTTPRequest(url: response.url, method: method == "HEAD" ? "HEAD" : "GET",
                                       headers: request.headers.filter { !Self.isBodyHeader($0.name) })
        }
        let contentType = response.headers.value(for: "Content-Type") ?? ""
        let recorded = Response(
            status: response.status,
            statusText: HARRecording.reasonPhrase(response.status),
            headers: response.headers,
            content: Content(size: response.body.count, mimeType: contentType, body: response.body),
            redirectURL: response.headers.value(for: "Location") ?? "",
            bodySize: response.body.count
        )
        entries.append(Entry(
            startedDateTime: started, time: milliseconds,
            request: Self.requestRecord(finalRequest, method: finalRequest.method), response: recorded,
            timings: Timings(send: 0, wait: milliseconds, receive: 0)
        ))
    }

    private static func isBodyHeader(_ name: String) -> Bool {
        let lower = name.lowercased()
        return lower == "content-type" || lower == "content-length"
    }

    private static func requestRecord(_ request: HTTPRequest, method: String) -> Request {
        var query: [NameValue] = []
        var url = Substring(request.url)
        if let hash = url.firstIndex(of: "#") { url = url[..<hash] }
        if let question = url.firstIndex(of: "?") {
            for pair in url[url.index(after: question)...].split(separator: "&") {
                if let equals = pair.firstIndex(of: "=") {
                    query.append(NameValue(name: String(pair[..<equals]), value: String(pair[pair.index(after: equals)...])))
                } else {
                    query.append(NameValue(name: String(pair), value: ""))
                }
            }
        }
        var postData: PostData?
        if let body = request.body {
            postData = PostData(mimeType: request.headers.value(for: "Content-Type") ?? "", body: body)
        }
        return Request(
            method: method, url: request.url, headers: request.headers, queryString: query,
            bodySize: request.body?.count ?? 0, postData: postData
        )
    }

    /// The standard reason phrase for common statuses (HTTPResponse does not carry one), or "".
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 200: return "OK"
        case 201: return "Created"
        case 204: return "No Content"
        case 206: return "Partial Content"
        case 301: return "Moved Permanently"
        case 302: return "Found"
        case 303: return "See Other"
        case 304: return "Not Modified"
        case 307: return "Temporary Redirect"
        case 308: return "Permanent Redirect"
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 502: return "Bad Gateway"
        case 503: return "Service Unavailable"
        case 504: return "Gateway Timeout"
        default: return ""
        }
    }
}

// MARK: - Loading

extension HARRecording {
    /// Reads a HAR file such as Chromium DevTools' "Save all as HAR with content" or one `--record` wrote.
    /// Throws `HARError` naming the file, the entry, the field and the line when something is wrong.
    public static func load(contentsOf path: String) throws -> HARRecording {
        let bytes: [UInt8]
        do {
            bytes = try LocalFile.read(path)
        } catch {
            throw HARError.cannotRead(path: path, reason: error.reason)
        }
        return try parse(bytes, path: path)
    }

    /// Parses HAR JSON already in memory; `path` is only used in error messages.
    public static func parse(_ bytes: [UInt8], path: String) throws -> HARRecording {
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes)
        } catch {
            throw HARError.notJSON(path: path, reason: error.description)
        }
        var reader = HARReader(path: path)
        return try reader.recording(root)
    }
}

/// Walks the parsed JSON, turning every shape problem into a `HARError` naming the entry, field and line.
private struct HARReader {
    let path: String
    var entryNumber: Int?

    init(path: String) {
        self.path = path
    }

    func fail(_ field: String, _ problem: String, at node: JSONNode?) -> HARError {
        .invalid(path: path, entry: entryNumber, field: field, problem: problem, line: node?.location.line)
    }

    /// The member `key` of `object`, nil when absent or `null`.
    func member(_ object: JSONObject, _ key: String) -> JSONNode? {
        guard let node = object[key] else { return nil }
        if case .null = node.value { return nil }
        return node
    }

    func object(_ node: JSONNode?, _ field: String, parent: JSONNode?) throws(HARError) -> JSONObject {
        guard let node else { throw fail(field, "is missing", at: parent) }
        guard let object = node.value.objectValue else { throw fail(field, "is not an object", at: node) }
        return object
    }

    func array(_ node: JSONNode?, _ field: String) throws(HARError) -> [JSONNode] {
        guard let node else { return [] }
        guard let array = node.value.arrayValue else { throw fail(field, "is not an array", at: node) }
        return array
    }

    func string(_ node: JSONNode?, _ field: String, parent: JSONNode) throws(HARError) -> String {
        guard let node else { throw fail(field, "is missing", at: parent) }
        guard let string = node.value.stringValue else { throw fail(field, "is not a string", at: node) }
        return string
    }

    func optionalString(_ node: JSONNode?, _ field: String) throws(HARError) -> String? {
        guard let node else { return nil }
        guard let string = node.value.stringValue else { throw fail(field, "is not a string", at: node) }
        return string
    }

    func double(_ node: JSONNode?, _ field: String) throws(HARError) -> Double? {
        guard let node else { return nil }
        guard let double = node.value.doubleValue else { throw fail(field, "is not a number", at: node) }
        guard double.isFinite else { throw fail(field, "is not a finite number", at: node) }
        return double
    }

    func int(_ node: JSONNode?, _ field: String) throws(HARError) -> Int? {
        guard let node else { return nil }
        guard case .number = node.value else { throw fail(field, "is not a number", at: node) }
        guard let int = node.value.intValue else { throw fail(field, "is not a whole number", at: node) }
        return int
    }

    func bool(_ node: JSONNode?, _ field: String) throws(HARError) -> Bool? {
        guard let node else { return nil }
        guard let bool = node.value.boolValue else { throw fail(field, "is not true or false", at: node) }
        return bool
    }

    mutating func recording(_ root: JSONNode) throws(HARError) -> HARRecording {
        let top = try object(root, "the top level", parent: root)
        let logNode = member(top, "log")
        let log = try object(logNode, "log", parent: root)
        let version = try optionalString(member(log, "version"), "log.version") ?? "1.2"
        var creator = HARRecording.Creator(name: "", version: "")
        if let creatorNode = member(log, "creator") {
            let creatorObject = try object(creatorNode, "log.creator", parent: creatorNode)
            creator.name = try optionalString(member(creatorObject, "name"), "log.creator.name") ?? ""
            creator.version = try optionalString(member(creatorObject, "version"), "log.creator.version") ?? ""
        }
        guard let entriesNode = member(log, "entries") else { throw fail("log.entries", "is missing", at: logNode) }
        let rawEntries = try array(entriesNode, "log.entries")
        var entries: [HARRecording.Entry] = []
        entries.reserveCapacity(rawEntries.count)
        for (index, raw) in rawEntries.enumerated() {
            entryNumber = index + 1
            entries.append(try entry(raw))
        }
        entryNumber = nil
        return HARRecording(version: version, creator: creator, entries: entries)
    }

    func entry(_ node: JSONNode) throws(HARError) -> HARRecording.Entry {
        let object = try self.object(node, "the entry", parent: node)
        let request = try self.request(member(object, "request"), entry: node)
        let response = try self.response(member(object, "response"), entry: node)
        var cache = HARRecording.Cache()
        if let cacheNode = member(object, "cache") {
            let cacheObject = try self.object(cacheNode, "cache", parent: cacheNode)
            cache.beforeRequest = try cacheState(member(cacheObject, "beforeRequest"), "cache.beforeRequest")
            cache.afterRequest = try cacheState(member(cacheObject, "afterRequest"), "cache.afterRequest")
        }
        var timings = HARRecording.Timings(send: -1, wait: -1, receive: -1)
        if let timingsNode = member(object, "timings") {
            let timingsObject = try self.object(timingsNode, "timings", parent: timingsNode)
            timings.send = try double(member(timingsObject, "send"), "timings.send") ?? -1
            timings.wait = try double(member(timingsObject, "wait"), "timings.wait") ?? -1
            timings.receive = try double(member(timingsObject, "receive"), "timings.receive") ?? -1
        }
        return HARRecording.Entry(
            startedDateTime: try optionalString(member(object, "startedDateTime"), "startedDateTime") ?? "",
            time: try double(member(object, "time"), "time") ?? -1,
            request: request,
            response: response,
            cache: cache,
            timings: timings,
            comment: try optionalString(member(object, "comment"), "comment")
        )
    }

    func request(_ node: JSONNode?, entry: JSONNode) throws(HARError) -> HARRecording.Request {
        let object = try self.object(node, "request", parent: entry)
        let here = node ?? entry
        var request = HARRecording.Request(
            method: try string(member(object, "method"), "request.method", parent: here),
            url: try string(member(object, "url"), "request.url", parent: here),
            httpVersion: try optionalString(member(object, "httpVersion"), "request.httpVersion") ?? "",
            headers: try headers(member(object, "headers"), "request.headers"),
            queryString: try nameValues(member(object, "queryString"), "request.queryString"),
            cookies: try cookies(member(object, "cookies"), "request.cookies"),
            headersSize: try int(member(object, "headersSize"), "request.headersSize") ?? -1,
            bodySize: try int(member(object, "bodySize"), "request.bodySize") ?? -1
        )
        if let postNode = member(object, "postData") {
            let post = try self.object(postNode, "request.postData", parent: postNode)
            var encoding = try optionalString(member(post, "encoding"), "request.postData.encoding")
            if encoding == nil { encoding = try optionalString(member(post, "_encoding"), "request.postData._encoding") }
            request.postData = HARRecording.PostData(
                mimeType: try optionalString(member(post, "mimeType"), "request.postData.mimeType") ?? "",
                body: try body(text: member(post, "text"), encoding: encoding, field: "request.postData")
            )
        }
        return request
    }

    func response(_ node: JSONNode?, entry: JSONNode) throws(HARError) -> HARRecording.Response {
        let object = try self.object(node, "response", parent: entry)
        let here = node ?? entry
        guard let status = try int(member(object, "status"), "response.status") else {
            throw fail("response.status", "is missing", at: here)
        }
        var content = HARRecording.Content(size: -1, mimeType: "", body: nil)
        if let contentNode = member(object, "content") {
            let contentObject = try self.object(contentNode, "response.content", parent: contentNode)
            content.size = try int(member(contentObject, "size"), "response.content.size") ?? -1
            content.compression = try int(member(contentObject, "compression"), "response.content.compression")
            content.mimeType = try optionalString(member(contentObject, "mimeType"), "response.content.mimeType") ?? ""
            content.body = try body(
                text: member(contentObject, "text"),
                encoding: try optionalString(member(contentObject, "encoding"), "response.content.encoding"),
                field: "response.content"
            )
        }
        return HARRecording.Response(
            status: status,
            statusText: try optionalString(member(object, "statusText"), "response.statusText") ?? "",
            httpVersion: try optionalString(member(object, "httpVersion"), "response.httpVersion") ?? "",
            headers: try headers(member(object, "headers"), "response.headers"),
            cookies: try cookies(member(object, "cookies"), "response.cookies"),
            content: content,
            redirectURL: try optionalString(member(object, "redirectURL"), "response.redirectURL") ?? "",
            headersSize: try int(member(object, "headersSize"), "response.headersSize") ?? -1,
            bodySize: try int(member(object, "bodySize"), "response.bodySize") ?? -1
        )
    }

    func body(text node: JSONNode?, encoding: String?, field: String) throws(HARError) -> [UInt8]? {
        guard let text = try optionalString(node, "\(field).text") else { return nil }
        switch encoding?.lowercased() {
        case nil, "":
            return Array(text.utf8)
        case "base64":
            let compact = text.filter { !($0 == " " || $0 == "\n" || $0 == "\r" || $0 == "\t") }
            guard let data = Data(base64Encoded: compact) else {
                throw fail("\(field).text", "is not valid base64", at: node)
            }
            return Array(data)
        case let other?:
            throw fail("\(field).encoding", "is \"\(other)\"; only \"base64\" (or no encoding) is supported", at: node)
        }
    }

    func headers(_ node: JSONNode?, _ field: String) throws(HARError) -> [HTTPHeader] {
        try nameValues(node, field).map { HTTPHeader($0.name, $0.value) }
    }

    func nameValues(_ node: JSONNode?, _ field: String) throws(HARError) -> [HARRecording.NameValue] {
        var result: [HARRecording.NameValue] = []
        for (index, item) in try array(node, field).enumerated() {
            let itemField = "\(field)[\(index)]"
            let object = try self.object(item, itemField, parent: item)
            result.append(HARRecording.NameValue(
                name: try string(member(object, "name"), "\(itemField).name", parent: item),
                value: try optionalString(member(object, "value"), "\(itemField).value") ?? ""
            ))
        }
        return result
    }

    func cookies(_ node: JSONNode?, _ field: String) throws(HARError) -> [HARRecording.Cookie] {
        var result: [HARRecording.Cookie] = []
        for (index, item) in try array(node, field).enumerated() {
            let itemField = "\(field)[\(index)]"
            let object = try self.object(item, itemField, parent: item)
            result.append(HARRecording.Cookie(
                name: try string(member(object, "name"), "\(itemField).name", parent: item),
                value: try optionalString(member(object, "value"), "\(itemField).value") ?? "",
                path: try optionalString(member(object, "path"), "\(itemField).path"),
                domain: try optionalString(member(object, "domain"), "\(itemField).domain"),
                expires: try optionalString(member(object, "expires"), "\(itemField).expires"),
                httpOnly: try bool(member(object, "httpOnly"), "\(itemField).httpOnly"),
                secure: try bool(member(object, "secure"), "\(itemField).secure")
            ))
        }
        return result
    }

    func cacheState(_ node: JSONNode?, _ field: String) throws(HARError) -> HARRecording.CacheState? {
        guard let node else { return nil }
        let object = try self.object(node, field, parent: node)
        return HARRecording.CacheState(
            expires: try optionalString(member(object, "expires"), "\(field).expires"),
            lastAccess: try optionalString(member(object, "lastAccess"), "\(field).lastAccess") ?? "",
            eTag: try optionalString(member(object, "eTag"), "\(field).eTag") ?? "",
            hitCount: try int(member(object, "hitCount"), "\(field).hitCount") ?? 0
        )
    }
}

// MARK: - Writing

extension HARRecording {
    /// Writes the recording to `path` atomically: a temporary file in the same directory is written, flushed
    /// to disk and renamed over `path`, so an interrupted `--record` never leaves a half-written fixture.
    public func write(to path: String) throws {
        do {
            try LocalFile.writeAtomically(jsonBytes(), to: path)
        } catch {
            throw HARError.cannotWrite(path: path, reason: error.reason)
        }
    }

    /// The recording as pretty-printed HAR JSON, fields in the order the HAR spec lists them.
    public func jsonBytes() -> [UInt8] {
        var out = JSONWriter()
        out.object { out in
            out.key("log")
            out.object { out in
                out.member("version", string: version)
                out.key("creator")
                out.object { out in
                    out.member("name", string: creator.name)
                    out.member("version", string: creator.version)
                }
                out.key("entries")
                out.array(entries) { out, entry in Self.writeEntry(entry, to: &out) }
            }
        }
        out.bytes.append(0x0A)
        return out.bytes
    }

    private static func writeEntry(_ entry: Entry, to out: inout JSONWriter) {
        out.object { out in
            out.member("startedDateTime", string: entry.startedDateTime)
            out.member("time", number: entry.time)
            out.key("request")
            out.object { out in
                let request = entry.request
                out.member("method", string: request.method)
                out.member("url", string: request.url)
                out.member("httpVersion", string: request.httpVersion)
                out.key("headers")
                out.nameValues(request.headers.map { ($0.name, $0.value) })
                out.key("queryString")
                out.nameValues(request.queryString.map { ($0.name, $0.value) })
                out.key("cookies")
                writeCookies(request.cookies, to: &out)
                out.member("headersSize", int: request.headersSize)
                out.member("bodySize", int: request.bodySize)
                if let post = request.postData {
                    out.key("postData")
                    out.object { out in
                        out.member("mimeType", string: post.mimeType)
                        writeBody(post.body, to: &out)
                    }
                }
            }
            out.key("response")
            out.object { out in
                let response = entry.response
                out.member("status", int: response.status)
                out.member("statusText", string: response.statusText)
                out.member("httpVersion", string: response.httpVersion)
                out.key("headers")
                out.nameValues(response.headers.map { ($0.name, $0.value) })
                out.key("cookies")
                writeCookies(response.cookies, to: &out)
                out.key("content")
                out.object { out in
                    out.member("size", int: response.content.size)
                    if let compression = response.content.compression { out.member("compression", int: compression) }
                    out.member("mimeType", string: response.content.mimeType)
                    writeBody(response.content.body, to: &out)
                }
                out.member("redirectURL", string: response.redirectURL)
                out.member("headersSize", int: response.headersSize)
                out.member("bodySize", int: response.bodySize)
            }
            out.key("cache")
            out.object { out in
                if let before = entry.cache.beforeRequest { writeCacheState(before, key: "beforeRequest", to: &out) }
                if let after = entry.cache.afterRequest { writeCacheState(after, key: "afterRequest", to: &out) }
            }
            out.key("timings")
            out.object { out in
                out.member("send", number: entry.timings.send)
                out.member("wait", number: entry.timings.wait)
                out.member("receive", number: entry.timings.receive)
            }
            if let comment = entry.comment { out.member("comment", string: comment) }
        }
    }

    private static func writeBody(_ body: [UInt8]?, to out: inout JSONWriter) {
        guard let body else { return }
        if let text = String(validating: body, as: UTF8.self) {
            out.member("text", string: text)
        } else {
            out.member("text", string: Data(body).base64EncodedString())
            out.member("encoding", string: "base64")
        }
    }

    private static func writeCookies(_ cookies: [Cookie], to out: inout JSONWriter) {
        out.array(cookies) { out, cookie in
            out.object { out in
                out.member("name", string: cookie.name)
                out.member("value", string: cookie.value)
                if let path = cookie.path { out.member("path", string: path) }
                if let domain = cookie.domain { out.member("domain", string: domain) }
                if let expires = cookie.expires { out.member("expires", string: expires) }
                if let httpOnly = cookie.httpOnly { out.member("httpOnly", bool: httpOnly) }
                if let secure = cookie.secure { out.member("secure", bool: secure) }
            }
        }
    }

    private static func writeCacheState(_ state: CacheState, key: String, to out: inout JSONWriter) {
        out.key(key)
        out.object { out in
            if let expires = state.expires { out.member("expires", string: expires) }
            out.member("lastAccess", string: state.lastAccess)
            out.member("eTag", string: state.eTag)
            out.member("hitCount", int: state.hitCount)
        }
    }
}

/// A small pretty-printing JSON emitter that keeps member order (JSONSerialization sorts or scrambles it, and
/// escapes `/`), so fixtures diff cleanly in review.
private struct JSONWriter {
    var bytes: [UInt8] = []
    private var depth = 0
    private var needsComma = false
    private var afterKey = false

    private mutating func beginValue() {
        if afterKey {
            afterKey = false
            return
        }
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        if depth > 0 { newline() }
    }

    private mutating func newline() {
        bytes.append(0x0A)
        bytes.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth * 2))
    }

    mutating func object(_ body: (inout JSONWriter) -> Void) {
        container(open: "{", close: "}", body)
    }

    mutating func array<S: Sequence>(_ items: S, _ body: (inout JSONWriter, S.Element) -> Void) {
        container(open: "[", close: "]") { out in
            for item in items { body(&out, item) }
        }
    }

    private mutating func container(open: Unicode.Scalar, close: Unicode.Scalar, _ body: (inout JSONWriter) -> Void) {
        beginValue()
        bytes.append(UInt8(ascii: open))
        depth += 1
        needsComma = false
        let start = bytes.count
        body(&self)
        depth -= 1
        if bytes.count != start { newline() }
        bytes.append(UInt8(ascii: close))
        needsComma = true
    }

    mutating func key(_ name: String) {
        beginValue()
        appendString(name)
        bytes.append(contentsOf: [UInt8(ascii: ":"), UInt8(ascii: " ")])
        afterKey = true
    }

    mutating func member(_ name: String, string value: String) {
        key(name)
        beginValue()
        appendString(value)
        needsComma = true
    }

    mutating func member(_ name: String, int value: Int) {
        key(name)
        beginValue()
        bytes.append(contentsOf: Array(String(value).utf8))
        needsComma = true
    }

    mutating func member(_ name: String, bool value: Bool) {
        key(name)
        beginValue()
        bytes.append(contentsOf: Array((value ? "true" : "false").utf8))
        needsComma = true
    }

    /// Numbers print without a fraction when whole (as HAR tools do); non-finite values, which JSON cannot
    /// hold, are written as -1 ("unknown" in HAR).
    mutating func member(_ name: String, number value: Double) {
        key(name)
        beginValue()
        let text: String
        if !value.isFinite {
            text = "-1"
        } else if value == value.rounded(), abs(value) < 1e15 {
            text = String(Int(value))
        } else {
            text = String(value)
        }
        bytes.append(contentsOf: Array(text.utf8))
        needsComma = true
    }

    mutating func nameValues(_ pairs: [(String, String)]) {
        array(pairs) { out, pair in
            out.object { out in
                out.member("name", string: pair.0)
                out.member("value", string: pair.1)
            }
        }
    }

    /// Control characters are escaped, and so is U+FEFF: Foundation's JSONSerialization on Linux silently drops
    /// a raw U+FEFF at the start of a string or right after an escape, which would break byte-exact bodies.
    private mutating func appendString(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        let utf8 = Array(string.utf8)
        var index = 0
        while index < utf8.count {
            let byte = utf8[index]
            index += 1
            if byte == 0xEF, index + 1 < utf8.count, utf8[index] == 0xBB, utf8[index + 1] == 0xBF {
                bytes.append(contentsOf: Array("\\ufeff".utf8))
                index += 2
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): bytes.append(contentsOf: [0x5C, UInt8(ascii: "\"")])
            case 0x5C: bytes.append(contentsOf: [0x5C, 0x5C])
            case 0x0A: bytes.append(contentsOf: [0x5C, UInt8(ascii: "n")])
            case 0x0D: bytes.append(contentsOf: [0x5C, UInt8(ascii: "r")])
            case 0x09: bytes.append(contentsOf: [0x5C, UInt8(ascii: "t")])
            case 0x00..<0x20:
                let hex = Array("0123456789abcdef".utf8)
                bytes.append(contentsOf: [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"),
                                          hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]])
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

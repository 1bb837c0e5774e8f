import Foundation
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

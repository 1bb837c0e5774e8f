import Foundation
import BookRuleDocument
import BookRuleJSON

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

    /// The recording as pretty-printed HAR JSON (`JSONWriter`), fields in the order the HAR spec lists them.
    public func jsonBytes() -> [UInt8] {
        let log = Self.object([
            ("version", .string(version)),
            ("creator", Self.object([("name", .string(creator.name)), ("version", .string(creator.version))])),
            ("entries", .array(entries.map { Self.node(Self.entry($0)) })),
        ])
        return JSONWriter.bytes(Self.object([("log", log)]), style: .pretty)
    }

    private static func entry(_ entry: Entry) -> JSONValue {
        let request = entry.request
        let response = entry.response
        return object([
            ("startedDateTime", .string(entry.startedDateTime)),
            ("time", number(entry.time)),
            ("request", object([
                ("method", .string(request.method)),
                ("url", .string(request.url)),
                ("httpVersion", .string(request.httpVersion)),
                ("headers", nameValues(request.headers.map { ($0.name, $0.value) })),
                ("queryString", nameValues(request.queryString.map { ($0.name, $0.value) })),
                ("cookies", cookies(request.cookies)),
                ("headersSize", int(request.headersSize)),
                ("bodySize", int(request.bodySize)),
                ("postData", request.postData.map { object([("mimeType", .string($0.mimeType))] + body($0.body)) }),
            ])),
            ("response", object([
                ("status", int(response.status)),
                ("statusText", .string(response.statusText)),
                ("httpVersion", .string(response.httpVersion)),
                ("headers", nameValues(response.headers.map { ($0.name, $0.value) })),
                ("cookies", cookies(response.cookies)),
                ("content", object([
                    ("size", int(response.content.size)),
                    ("compression", response.content.compression.map(int)),
                    ("mimeType", .string(response.content.mimeType)),
                ] + body(response.content.body))),
                ("redirectURL", .string(response.redirectURL)),
                ("headersSize", int(response.headersSize)),
                ("bodySize", int(response.bodySize)),
            ])),
            ("cache", object([
                ("beforeRequest", entry.cache.beforeRequest.map(cacheState)),
                ("afterRequest", entry.cache.afterRequest.map(cacheState)),
            ])),
            ("timings", object([
                ("send", number(entry.timings.send)),
                ("wait", number(entry.timings.wait)),
                ("receive", number(entry.timings.receive)),
            ])),
            ("comment", entry.comment.map { .string($0) }),
        ])
    }

    /// A body as HAR's `text` member: the text itself when it is UTF-8, else base64 with `encoding`.
    private static func body(_ body: [UInt8]?) -> [(String, JSONValue?)] {
        guard let body else { return [] }
        if let text = String(validating: body, as: UTF8.self) { return [("text", .string(text))] }
        return [("text", .string(Data(body).base64EncodedString())), ("encoding", .string("base64"))]
    }

    private static func cookies(_ cookies: [Cookie]) -> JSONValue {
        .array(cookies.map { cookie in
            node(object([
                ("name", .string(cookie.name)),
                ("value", .string(cookie.value)),
                ("path", cookie.path.map { .string($0) }),
                ("domain", cookie.domain.map { .string($0) }),
                ("expires", cookie.expires.map { .string($0) }),
                ("httpOnly", cookie.httpOnly.map { .bool($0) }),
                ("secure", cookie.secure.map { .bool($0) }),
            ]))
        })
    }

    private static func cacheState(_ state: CacheState) -> JSONValue {
        object([
            ("expires", state.expires.map { .string($0) }),
            ("lastAccess", .string(state.lastAccess)),
            ("eTag", .string(state.eTag)),
            ("hitCount", int(state.hitCount)),
        ])
    }

    private static func nameValues(_ pairs: [(String, String)]) -> JSONValue {
        .array(pairs.map { node(object([("name", .string($0.0)), ("value", .string($0.1))])) })
    }

    /// An object of the members that have a value, in the order given.
    private static func object(_ members: [(String, JSONValue?)]) -> JSONValue {
        .object(JSONObject(members: members.compactMap { key, value in value.map { (key, node($0)) } }))
    }

    /// A value built here, not read from a file: it has no position of its own.
    private static func node(_ value: JSONValue) -> JSONNode {
        JSONNode(value, location: SourceLocation(line: 1, column: 1))
    }

    private static func int(_ value: Int) -> JSONValue {
        .number(String(value))
    }

    /// Numbers print without a fraction when whole (as HAR tools do); non-finite values, which JSON cannot
    /// hold, are written as -1 ("unknown" in HAR).
    private static func number(_ value: Double) -> JSONValue {
        guard value.isFinite else { return .number("-1") }
        if value == value.rounded(), abs(value) < 1e15 { return .number(String(Int(value))) }
        return .number(String(value))
    }
}

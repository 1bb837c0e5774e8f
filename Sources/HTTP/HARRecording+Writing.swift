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

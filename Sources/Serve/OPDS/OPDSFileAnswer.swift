import BookRuleHTTPServer
import Foundation

/// How a book's file is answered, as e-readers expect of a download they may resume: `ETag` and
/// `Last-Modified`; `If-None-Match` (or, without it, `If-Modified-Since`) answered 304 when the file is
/// unchanged; one `Range` of bytes answered 206 (or 416 when it lies past the end), unless `If-Range` names
/// another version, which gets the whole file; `HEAD` as `GET` without the body (libmicrohttpd leaves it out).
/// The bytes are sent from the file itself (`HTTPServerFile`), never read into memory.
enum OPDSFileAnswer {
    /// The answer to `request` for `file`, offered to save as `fileName` (`plainName`, ASCII without quotes or
    /// backslashes, for clients that cannot read a UTF-8 name).
    static func response(for file: OPDSBookFile, request: HTTPServerRequest, fileName: String, plainName: String,
                         contentType: String) -> HTTPServerResponse {
        let tag = "\"\(file.digest)\""
        let modified = httpDate(file.modified)
        var headers: [(name: String, value: String)] = [("ETag", tag), ("Last-Modified", modified),
                                                        ("Accept-Ranges", "bytes"), ("Cache-Control", "no-cache")]
        if let wanted = request.header("If-None-Match") {
            if matches(wanted, tag: tag) { return HTTPServerResponse(status: 304, headers: headers) }
        } else if let since = request.header("If-Modified-Since").flatMap(parseHTTPDate),
                  Int(file.modified.timeIntervalSince1970) <= Int(since.timeIntervalSince1970) {
            return HTTPServerResponse(status: 304, headers: headers)
        }
        headers.append(("Content-Type", contentType))
        // RFC 6266: the UTF-8 name, and an ASCII one for clients that read only `filename`.
        headers.append(("Content-Disposition", "attachment; filename=\"\(plainName)\"; filename*=UTF-8''" + OPDSXML.queryValue(fileName)))
        var range = request.header("Range").flatMap { ByteRange(parsing: $0) }
        if let condition = request.header("If-Range"), condition != tag, condition != modified {
            range = nil
        }
        guard let range else {
            var whole = HTTPServerResponse(status: 200, headers: headers)
            whole.file = HTTPServerFile(path: file.path, length: file.size)
            return whole
        }
        guard let bounds = range.bounds(size: file.size) else {
            headers.append(("Content-Range", "bytes */\(file.size)"))
            var refused = HTTPServerResponse(status: 416, headers: headers.filter { $0.name != "Content-Type" && $0.name != "Content-Disposition" })
            refused.headers.append(("Content-Type", "text/plain; charset=utf-8"))
            refused.body = Array("the range lies past the end of the file (\(file.size) bytes)\n".utf8)
            return refused
        }
        let (first, last) = bounds
        headers.append(("Content-Range", "bytes \(first)-\(last)/\(file.size)"))
        var part = HTTPServerResponse(status: 206, headers: headers)
        part.file = HTTPServerFile(path: file.path, offset: first, length: last - first + 1)
        return part
    }

    /// Whether an `If-None-Match` value names `tag` (or is `*`); weak tags compare by their opaque part.
    static func matches(_ header: String, tag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let trimmed = candidate.trimmingCharacters(in: .whitespaces)
            return trimmed == "*" || trimmed == tag || trimmed == "W/" + tag
        }
    }

    /// One range of a `Range: bytes=…` header: `first-last`, `first-` or `-suffix`. Several ranges, another
    /// unit or a malformed value give nil, and the whole file is sent (RFC 9110 lets a server ignore Range).
    struct ByteRange: Sendable, Equatable {
        /// The first byte, nil for a suffix range.
        var first: UInt64?
        /// The last byte (inclusive), or the suffix's length when `first` is nil; nil: to the end.
        var last: UInt64?

        /// Parses the header's value.
        init?(parsing header: String) {
            let value = header.trimmingCharacters(in: .whitespaces)
            guard value.lowercased().hasPrefix("bytes="), value.count < 200 else { return nil }
            let spec = value.dropFirst("bytes=".count).trimmingCharacters(in: .whitespaces)
            guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return nil }
            let start = spec[..<dash].trimmingCharacters(in: .whitespaces)
            let end = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
            guard start.allSatisfy(\.isASCIIDigit), end.allSatisfy(\.isASCIIDigit) else { return nil }
            if start.isEmpty {
                guard let suffix = UInt64(end) else { return nil }
                first = nil
                last = suffix
            } else {
                guard let from = UInt64(start) else { return nil }
                first = from
                if end.isEmpty {
                    last = nil
                } else {
                    guard let to = UInt64(end), to >= from else { return nil }
                    last = to
                }
            }
        }

        /// The first and last byte within a file of `size` bytes; nil when the range is not satisfiable.
        func bounds(size: UInt64) -> (UInt64, UInt64)? {
            guard size > 0 else { return nil }
            guard let first else {
                guard let suffix = last, suffix > 0 else { return nil }
                return (size - min(suffix, size), size - 1)
            }
            guard first < size else { return nil }
            return (first, min(last ?? (size - 1), size - 1))
        }
    }

    /// `date` as HTTP writes dates (IMF-fixdate).
    static func httpDate(_ date: Date) -> String {
        httpDateFormatter().string(from: date)
    }

    /// An IMF-fixdate; nil for anything else.
    static func parseHTTPDate(_ text: String) -> Date? {
        httpDateFormatter().date(from: text.trimmingCharacters(in: .whitespaces))
    }

    private static func httpDateFormatter() -> DateFormatter {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss 'GMT'"
        return formatter
    }
}

extension Character {
    /// Whether this is one of the ASCII digits 0–9.
    fileprivate var isASCIIDigit: Bool { ("0"..."9").contains(self) }
}

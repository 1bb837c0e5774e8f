/// Why saved pages could not answer a request or could not be read.
public enum SavedPageError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No saved page is the response of this request; `saved` lists the URLs that are saved.
    case notSaved(method: String, url: String, body: [UInt8]?, saved: [String])
    /// A page file or the index could not be read.
    case cannotRead(path: String, reason: String)
    /// The directory's index (`pages.json`) is not what it should be; `problem` says what and where.
    case invalidIndex(path: String, problem: String)
    /// A file the index names (or the index itself, with no `line`) was refused: it leads outside the
    /// directory or is an absolute path. `url` is the URL it was listed for.
    case refused(index: String, line: Int?, url: String?, FixtureFileError)

    /// What happened, naming the request or the file.
    public var description: String {
        switch self {
        case .notSaved(let method, let url, let body, let saved):
            let list = saved.isEmpty ? "none are saved" : "saved: " + saved.prefix(5).joined(separator: ", ")
                + (saved.count > 5 ? ", and \(saved.count - 5) more" : "")
            return "not saved: \(HTTPRequest.summary(method: method, url: url, body: body)) is not among the saved pages (\(list)); nothing was fetched"
        case .cannotRead(let path, let reason):
            return "\(path): cannot read the saved page: \(reason)"
        case .invalidIndex(let path, let problem):
            return "\(path): \(problem)"
        case .refused(let index, let line, let url, let error):
            let place = (line.map { "line \($0): " } ?? "") + (url.map { "\($0): " } ?? "")
            return "\(index): \(place)\(error)"
        }
    }
}

extension HTTPRequest {
    /// `GET https://…`, or `POST https://… with body "searchkey=…"`: a request as messages name it (bodies that
    /// are not UTF-8 are shown percent-escaped, so every byte can be read back).
    package static func summary(method: String, url: String, body: [UInt8]?) -> String {
        guard let body, !body.isEmpty else { return "\(method) \(url)" }
        return "\(method) \(url) with body \"\(bodyText(body))\""
    }

    /// The body as text: itself when it is UTF-8 without control characters, else `%XX`-escaped where needed.
    package static func bodyText(_ body: [UInt8]) -> String {
        if let text = String(validating: body, as: UTF8.self), !text.unicodeScalars.contains(where: { $0.value < 0x20 }) {
            return text
        }
        let hex = Array("0123456789ABCDEF".utf8)
        var out: [UInt8] = []
        for byte in body {
            if byte >= 0x21 && byte < 0x7F && byte != UInt8(ascii: "%") {
                out.append(byte)
            } else {
                out += [UInt8(ascii: "%"), hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: out, as: UTF8.self)
    }
}

import BookRuleHTTPServer
import BookRuleJSON

#if canImport(Glibc)
import Glibc
#endif

/// The built web client `--web DIR` serves at `/vue/`: a request names a file inside DIR, resolved with
/// `realpath` (so `..` and symlinks are followed to where they really lead) and refused unless it is a regular
/// file inside DIR, of at most `sizeLimit` bytes.
struct WebFiles: Sendable {
    /// DIR's real path.
    let directory: String
    /// The largest file served.
    static let sizeLimit = 64 << 20

    /// Files inside `directory`; nil when it is not a folder.
    init?(directory: String) {
        guard let real = Self.realPath(directory) else { return nil }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else { return nil }
        self.directory = real
    }

    /// The answer for `relative` (the path after `/vue/`; empty for the index).
    func response(for relative: String) -> HTTPServerResponse {
        let name = relative.isEmpty || relative.hasSuffix("/") ? relative + "index.html" : relative
        guard let real = Self.realPath(directory + "/" + name),
              real.hasPrefix(directory == "/" ? "/" : directory + "/") else {
            return .text(404, "not found")
        }
        var info = stat()
        guard stat(real, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, Int(info.st_size) <= Self.sizeLimit,
              let bytes = try? LocalFile.read(real) else {
            return .text(404, "not found")
        }
        return HTTPServerResponse(status: 200, headers: [("Content-Type", Self.contentType(real))], body: bytes)
    }

    /// The content type of a file, from its name.
    static func contentType(_ name: String) -> String {
        let dot = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]).lowercased() } ?? ""
        switch dot {
        case "html", "htm": return "text/html; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "json", "map": return "application/json; charset=utf-8"
        case "txt": return "text/plain; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "gif": return "image/gif"
        case "webp": return "image/webp"
        case "ico": return "image/x-icon"
        case "woff": return "font/woff"
        case "woff2": return "font/woff2"
        case "ttf": return "font/ttf"
        case "otf": return "font/otf"
        default: return "application/octet-stream"
        }
    }

    private static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }
}

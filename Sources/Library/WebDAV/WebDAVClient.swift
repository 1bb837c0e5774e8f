import BookRuleHTTP
import Foundation

/// A WebDAV client for one folder on a server, as Legado's `lib/webdav` uses one: PROPFIND (depth 1) to list,
/// GET, PUT, MKCOL, MOVE without overwriting, DELETE; Basic authentication on every request.
///
/// Paths are relative to the folder (`rootURL`), `/`-separated names as the server stores them
/// (`bookProgress/长夜_某人.json`); the client percent-encodes each name. Redirects are not followed, so the
/// password is never sent to an address the user did not give. Every status a user can act on becomes a
/// `WebDAVError` naming the URL (and for 401 the user).
public struct WebDAVClient: Sendable {
    /// The folder's URL, ending in `/`: the configured URL, then the folder name (Legado's `webDavDir`), then `/`.
    public let rootURL: String
    /// The account every request authenticates as.
    public let credentials: WebDAVCredentials
    private let transport: any HTTPTransport

    /// Largest file `download` accepts unless told otherwise: a backup of thousands of sources is tens of MiB.
    public static let defaultDownloadLimit = 256 << 20

    /// A client for the folder `folder` (`legado` by default, as Legado's `webDavDir`; empty: the URL itself)
    /// under the server URL `url`.
    /// - Throws: `WebDAVError.invalidURL` when `url` is not http(s).
    public init(url: String, folder: String = "legado", credentials: WebDAVCredentials,
                transport: (any HTTPTransport)? = nil) throws(WebDAVError) {
        let trimmed = url.trimmingCharacters(in: .whitespaces)
        let lower = trimmed.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://"), trimmed.count > 8,
              !trimmed.contains(where: { $0.isWhitespace || $0 == "?" || $0 == "#" })
        else { throw .invalidURL(url: url) }
        var root = trimmed.hasSuffix("/") ? trimmed : trimmed + "/"
        let folderName = folder.trimmingCharacters(in: CharacterSet(charactersIn: "/ "))
        if !folderName.isEmpty {
            root += folderName.split(separator: "/").map { WebDAVPath.segment(String($0)) }.joined(separator: "/") + "/"
        }
        rootURL = root
        self.credentials = credentials
        self.transport = transport ?? Self.defaultTransport()
    }

    /// The transport used when none is given: libcurl with no redirects followed, no proxy from the
    /// environment for loopback servers, a 30 s connection limit and 10 minutes for one transfer.
    public static func defaultTransport() -> CurlTransport {
        CurlTransport(configuration: CurlTransport.Configuration(
            connectTimeout: .seconds(30), totalTimeout: .seconds(600), maxBodyBytes: defaultDownloadLimit,
            maxRedirects: 0, acceptEncoding: nil))
    }

    /// The absolute URL of `path` (relative to the folder).
    public func url(for path: String) -> String {
        let isFolder = path.hasSuffix("/")
        let names = path.split(separator: "/", omittingEmptySubsequences: true).map { WebDAVPath.segment(String($0)) }
        guard !names.isEmpty else { return rootURL }
        return rootURL + names.joined(separator: "/") + (isFolder ? "/" : "")
    }

    // MARK: - Requests

    /// The files and folders in the folder `path` ("" for the root), without the folder itself.
    /// - Throws: `.folderMissing` when there is no such folder, `.notWebDAV` when the server does not answer
    ///   PROPFIND with a multistatus, `.unauthorized` for a refused password.
    public func list(_ path: String = "") async throws(WebDAVError) -> [WebDAVEntry] {
        let folder = path.isEmpty || path.hasSuffix("/") ? path : path + "/"
        let url = url(for: folder)
        let body = Array("""
            <?xml version="1.0" encoding="utf-8"?>
            <propfind xmlns="DAV:"><prop><displayname/><resourcetype/><getcontentlength/><getlastmodified/></prop></propfind>
            """.utf8)
        let response = try await send("PROPFIND", url, body: body,
                                      headers: [HTTPHeader("Depth", "1"), HTTPHeader("Content-Type", "application/xml; charset=utf-8")])
        switch response.status {
        case 207:
            return try WebDAVListing.entries(of: response.body, folderURL: url, status: response.status)
        case 404, 409:
            throw .folderMissing(url: url)
        case 200..<300, 400, 405, 501:
            throw .notWebDAV(url: url, status: response.status, reason: "PROPFIND was not answered with 207 Multi-Status")
        default:
            throw failure("PROPFIND", url, response.status)
        }
    }

    /// Whether the folder `path` ("" for the root) exists.
    public func folderExists(_ path: String = "") async throws(WebDAVError) -> Bool {
        do throws(WebDAVError) {
            _ = try await list(path)
            return true
        } catch {
            if case .folderMissing = error { return false }
            throw error
        }
    }

    /// The bytes of the file at `path`.
    /// - Throws: `.fileMissing` on 404; `.unreachable` for a file larger than the transport accepts.
    public func download(_ path: String) async throws(WebDAVError) -> [UInt8] {
        let url = url(for: path)
        let response = try await send("GET", url)
        switch response.status {
        case 200..<300: return response.body
        case 404, 410: throw .fileMissing(url: url)
        default: throw failure("GET", url, response.status)
        }
    }

    /// The bytes of the file at `path`, nil when there is none.
    public func downloadIfPresent(_ path: String) async throws(WebDAVError) -> [UInt8]? {
        do throws(WebDAVError) {
            return try await download(path)
        } catch {
            if case .fileMissing = error { return nil }
            throw error
        }
    }

    /// Writes `bytes` to the file at `path`, replacing what is there (PUT).
    /// - Throws: `.folderMissing` when the folder it goes in does not exist (409), `.insufficientStorage` (507).
    public func upload(_ bytes: [UInt8], to path: String, contentType: String = "application/octet-stream") async throws(WebDAVError) {
        let url = url(for: path)
        let response = try await send("PUT", url, body: bytes, headers: [HTTPHeader("Content-Type", contentType)])
        switch response.status {
        case 200..<300: return
        case 409: throw .folderMissing(url: parent(of: url))
        default: throw failure("PUT", url, response.status)
        }
    }

    /// Creates the folder `path` (MKCOL); a folder that already exists is fine.
    public func makeFolder(_ path: String) async throws(WebDAVError) {
        let folder = path.hasSuffix("/") ? path : path + "/"
        let url = url(for: folder)
        let response = try await send("MKCOL", url)
        switch response.status {
        case 200..<300, 405: return  // 405: it exists already
        case 409: throw .folderMissing(url: parent(of: url))
        default: throw failure("MKCOL", url, response.status)
        }
    }

    /// Renames the file `source` to `destination` in one step (MOVE with `Overwrite: F`); false, and nothing
    /// changed, when `destination` exists already (412).
    public func move(_ source: String, to destination: String) async throws(WebDAVError) -> Bool {
        let url = url(for: source)
        let target = self.url(for: destination)
        let response = try await send("MOVE", url, headers: [HTTPHeader("Destination", target), HTTPHeader("Overwrite", "F")])
        switch response.status {
        case 200..<300: return true
        case 412: return false
        case 404: throw .fileMissing(url: url)
        case 409: throw .folderMissing(url: parent(of: target))
        default: throw failure("MOVE", url, response.status)
        }
    }

    /// Deletes the file at `path`; one that is already gone is fine.
    public func delete(_ path: String) async throws(WebDAVError) {
        let url = url(for: path)
        let response = try await send("DELETE", url)
        switch response.status {
        case 200..<300, 404: return
        default: throw failure("DELETE", url, response.status)
        }
    }

    // MARK: - Helpers

    private func send(_ method: String, _ url: String, body: [UInt8]? = nil,
                      headers: [HTTPHeader] = []) async throws(WebDAVError) -> HTTPResponse {
        var request = HTTPRequest(url: url, method: method,
                                  headers: [HTTPHeader("Authorization", credentials.authorization)] + headers, body: body)
        let secrets = SecretSet()
        secrets.insert([credentials.password, credentials.authorization])
        request.secrets = secrets
        let response: HTTPResponse
        do {
            response = try await transport.send(request)
        } catch HTTPTransportError.tooManyRedirects {
            // The default transport follows no redirect: the password goes only where the user said.
            throw .unreachable(url: url, reason: "it redirects to another address, which is not followed with the " +
                               "password: check the URL (https://, the trailing path) and give the address it moved to")
        } catch {
            throw .unreachable(url: url, reason: "\(error)")
        }
        switch response.status {
        case 401: throw .unauthorized(url: url, user: credentials.user)
        case 403: throw .forbidden(url: url, user: credentials.user)
        case 507: throw .insufficientStorage(url: url)
        case 300..<400:
            throw .unreachable(url: url, reason: "it redirects (HTTP \(response.status)) to " +
                               "\(response.headers.value(for: "Location") ?? "another address"), which is not followed " +
                               "with the password: give that address instead")
        default: return response
        }
    }

    private func failure(_ method: String, _ url: String, _ status: Int) -> WebDAVError {
        .unexpectedStatus(method: method, url: url, status: status)
    }

    private func parent(of url: String) -> String {
        var trimmed = Substring(url)
        if trimmed.hasSuffix("/") { trimmed = trimmed.dropLast() }
        guard let slash = trimmed.lastIndex(of: "/") else { return url }
        return String(trimmed[...slash])
    }
}

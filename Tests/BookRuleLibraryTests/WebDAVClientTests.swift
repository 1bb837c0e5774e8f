import Foundation
import Testing
import BookRuleHTTP
@testable import BookRuleLibrary
import TestSupport

@Suite("WebDAV client against wsgidav on loopback", .enabled(if: WebDAVServer.isAvailable,
       "wsgidav is not installed: scripts/install-deps.sh installs it into .build/webdav-venv"))
struct WebDAVClientTests {
    @Test("MKCOL, PUT, PROPFIND, GET and MOVE without overwrite, with Basic auth and names in CJK and spaces")
    func roundTrip() async throws {
        let server = try WebDAVServer()
        let client = try WebDAVClient(url: server.baseURL, credentials: WebDAVCredentials(user: server.user, password: server.password))
        #expect(client.rootURL == server.baseURL + "legado/")
        #expect(try await client.folderExists() == false)
        await #expect(throws: WebDAVError.folderMissing(url: client.rootURL)) { try await client.list() }
        try await client.makeFolder("")
        try await client.makeFolder("")  // an existing folder is fine
        try await client.makeFolder("bookProgress")
        #expect(try await client.list().map(\.name) == ["bookProgress"])

        let name = "长夜 灯火_某人%#?.json"
        try await client.upload(Array("{\"a\":1}".utf8), to: "bookProgress/" + name, contentType: "application/json")
        #expect(server.file("legado/bookProgress/" + name) == Array("{\"a\":1}".utf8))
        let listed = try await client.list("bookProgress")
        #expect(listed.map(\.name) == [name])
        #expect(listed.first?.size == 7)
        #expect(listed.first?.isFolder == false)
        #expect(listed.first?.lastModified != nil)
        #expect(try await client.download("bookProgress/" + name) == Array("{\"a\":1}".utf8))
        #expect(try await client.downloadIfPresent("bookProgress/none.json") == nil)
        await #expect(throws: WebDAVError.fileMissing(url: client.rootURL + "bookProgress/none.json")) {
            try await client.download("bookProgress/none.json")
        }

        try await client.upload(Array("first".utf8), to: "backup.zip")
        try await client.upload(Array("second".utf8), to: "upload.tmp")
        #expect(try await client.move("upload.tmp", to: "backup.zip") == false)
        #expect(server.file("legado/backup.zip") == Array("first".utf8))
        #expect(try await client.move("upload.tmp", to: "backup-2.zip"))
        #expect(server.file("legado/backup-2.zip") == Array("second".utf8))
        #expect(server.file("legado/upload.tmp") == nil)
        try await client.delete("backup-2.zip")
        #expect(server.file("legado/backup-2.zip") == nil)

        await #expect(throws: WebDAVError.folderMissing(url: client.rootURL + "missing/")) {
            try await client.upload([1], to: "missing/file.json")
        }
    }

    @Test("A wrong password is a 401 that names the URL and the user, never the password")
    func wrongPassword() async throws {
        let server = try WebDAVServer()
        let client = try WebDAVClient(url: server.baseURL, folder: "", credentials: WebDAVCredentials(user: server.user, password: "wrong-one"))
        do throws(WebDAVError) {
            _ = try await client.list()
            Issue.record("a wrong password was accepted")
        } catch {
            #expect(error == .unauthorized(url: server.baseURL, user: server.user))
            #expect(error.description.contains(server.baseURL))
            #expect(error.description.contains(server.user))
            #expect(!error.description.contains("wrong-one"))
        }
        #expect(!"\(client.credentials)".contains("wrong-one"))
    }
}

@Suite("WebDAV client: answers that are not WebDAV")
struct WebDAVClientErrorTests {
    static let credentials = WebDAVCredentials(user: "u", password: "p")

    @Test("A web page answering PROPFIND is 'not WebDAV'; 507 is named; a redirect is not followed")
    func notWebDAV() async throws {
        let site = TestSite([
            "https://plain.test/legado/": .init(body: Array("<html>hello</html>".utf8)),
            "https://full.test/legado/x.zip": .init(status: 507, body: []),
            "https://moved.test/legado/": .init(status: 301, headers: [HTTPHeader("Location", "https://elsewhere.test/")], body: []),
        ])
        let plain = try WebDAVClient(url: "https://plain.test", credentials: Self.credentials, transport: site)
        await #expect(throws: WebDAVError.notWebDAV(url: "https://plain.test/legado/", status: 200,
                                                     reason: "PROPFIND was not answered with 207 Multi-Status")) {
            try await plain.list()
        }
        let full = try WebDAVClient(url: "https://full.test/", credentials: Self.credentials, transport: site)
        await #expect(throws: WebDAVError.insufficientStorage(url: "https://full.test/legado/x.zip")) {
            try await full.upload([1, 2, 3], to: "x.zip")
        }
        let moved = try WebDAVClient(url: "https://moved.test/", credentials: Self.credentials, transport: site)
        do {
            _ = try await moved.list()
            Issue.record("a redirect was followed")
        } catch {
            #expect("\(error)".contains("elsewhere.test"))
        }
        #expect(site.requests.allSatisfy { $0.headers.value(for: "Authorization") == "Basic dTpw" })
        #expect(throws: WebDAVError.invalidURL(url: "ftp://x")) {
            _ = try WebDAVClient(url: "ftp://x", credentials: Self.credentials)
        }
    }

    @Test("Over libcurl a redirect is not followed: the password reaches only the address given")
    func redirectNotFollowed() async throws {
        let other = try FaultServer { _, _ in .ok("elsewhere") }
        let server = try FaultServer { _, _ in .redirect(status: 301, location: other.baseURL + "/dav/") }
        let client = try WebDAVClient(url: server.baseURL, credentials: Self.credentials)
        do throws(WebDAVError) {
            _ = try await client.list()
            Issue.record("a redirect was followed")
        } catch {
            guard case .unreachable(let url, let reason) = error else {
                Issue.record("unexpected \(error)")
                return
            }
            #expect(url == server.baseURL + "/legado/")
            #expect(reason.contains("not followed with the password"))
        }
        #expect(server.records.count == 1)
        #expect(other.records.isEmpty)
    }

    @Test("A multistatus is read whatever prefix the server gives the DAV: namespace; the folder itself is left out")
    func listingPrefixes() throws {
        let body = """
            <?xml version="1.0"?>
            <multistatus xmlns="DAV:"><response><href>/dav/legado/</href><propstat><prop><resourcetype><collection/></resourcetype></prop>
            <status>HTTP/1.1 200 OK</status></propstat></response>
            <response><href>http://h.test/dav/legado/backup2026-01-02.zip</href><propstat><prop><resourcetype/>
            <getcontentlength>12</getcontentlength><getlastmodified>Fri, 02 Jan 2026 10:00:00 GMT</getlastmodified></prop>
            <status>HTTP/1.1 200 OK</status></propstat></response>
            <D:response xmlns:D="DAV:"><D:href>/dav/legado/book%20Progress/</D:href><D:propstat><D:prop><D:resourcetype><D:collection/></D:resourcetype></D:prop>
            <D:status>HTTP/1.1 200 OK</D:status></D:propstat></D:response></multistatus>
            """
        let entries = try WebDAVListing.entries(of: Array(body.utf8), folderURL: "http://h.test/dav/legado/", status: 207)
        #expect(entries == [
            WebDAVEntry(name: "backup2026-01-02.zip", isFolder: false, size: 12,
                        lastModified: Date(timeIntervalSince1970: 1_767_348_000)),
            WebDAVEntry(name: "book Progress", isFolder: true),
        ])
        #expect(throws: WebDAVError.self) {
            try WebDAVListing.entries(of: Array("<html><body>no</body></html>".utf8), folderURL: "http://h.test/", status: 207)
        }
    }
}

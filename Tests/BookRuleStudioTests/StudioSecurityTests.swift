import Foundation
import Testing
@testable import BookRuleStudio

@Suite("Studio: the gate, the files it may touch, and GETs that change nothing")
struct StudioSecurityTests {
    @Test("A request without the token is refused with 403; the token by query, header or cookie lets it in")
    func noTokenIsForbidden() async throws {
        let workspace = try StudioWorkspace()
        let client = workspace.client
        #expect(try await client.send("GET", "/").status == 403)
        #expect(try await client.send("GET", "/api/state").status == 403)
        #expect(try await client.send("GET", "/api/state?token=wrong").status == 403)
        #expect(try await client.send("POST", "/api/save", body: "{\"source\": \"{}\"}").status == 403)
        let page = try await client.send("GET", "/?token=\(workspace.token)")
        #expect(page.status == 200)
        let cookie = try #require(page.header("Set-Cookie"))
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"))
        #expect(page.header("Content-Security-Policy")?.contains("script-src 'self'") == true)
        #expect(try await client.send("GET", "/api/state", headers: [("Cookie", "\(StudioAccess.cookieName)=\(workspace.token)")]).status == 200)
        #expect(try await workspace.get("/api/state").status == 200)
        #expect(try await client.send("GET", "/assets/studio.js").status == 403)
    }

    @Test("A request for another Host (DNS rebinding) or from another Origin is refused with 403")
    func foreignHostIsForbidden() async throws {
        let workspace = try StudioWorkspace()
        let port = workspace.server.port
        let header = [(StudioAccess.headerName, workspace.token)]
        #expect(try await workspace.client.send("GET", "/api/state", host: "evil.example:\(port)", headers: header).status == 403)
        #expect(try await workspace.client.send("GET", "/api/state", host: "127.0.0.1:\(port + 1)", headers: header).status == 403)
        #expect(try await workspace.client.send("GET", "/api/state", host: "127.0.0.1", headers: header).status == 403)
        #expect(try await workspace.client.send("GET", "/api/state", host: "localhost:\(port)", headers: header).status == 200)
        let foreignOrigin = header + [("Origin", "http://evil.example")]
        #expect(try await workspace.client.send("POST", "/api/save", headers: foreignOrigin, body: "{\"source\": \"{}\"}").status == 403)
        #expect(try String(contentsOfFile: workspace.sourcePath, encoding: .utf8) == StudioWorkspace.sourceText)
    }

    @Test("Paths outside the source file and the fixture directory are refused with 403, symlinks included")
    func pathOutsideIsForbidden() async throws {
        let workspace = try StudioWorkspace()
        try FileManager.default.createSymbolicLink(atPath: workspace.fixtureDirectory + "/escape.html", withDestinationPath: "/etc/hostname")
        try "<p>outside</p>".write(toFile: workspace.directory + "/outside.html", atomically: true, encoding: .utf8)
        for file in ["../outside.html", "../../../../etc/passwd", "/etc/passwd", "escape.html", "./../mysite.json"] {
            let body = "{\"step\": \"toc\", \"file\": \(StudioWorkspace.quoted(file)), \"url\": \"https://www.example.com/x\"}"
            let response = try await workspace.post("/api/page", body)
            #expect(response.status == 403, "\(file): \(response.status) \(response.text)")
        }
        #expect(try await workspace.get("/codemirror/../../../etc/passwd").status == 403)
        #expect(try await workspace.get("/assets/../../Package.swift").status == 403)
        #expect(try await workspace.get("/assets/index.html").status == 403)
        // A file inside is fine.
        let inside = try await workspace.post("/api/page", "{\"step\": \"toc\", \"file\": \"toc.html\", \"url\": \"https://www.example.com/novel/5/all.html\"}")
        #expect(inside.status == 200, "\(inside.text)")
    }

    @Test("GET never changes anything: state-changing routes answer 405 to GET, and no GET touches a file")
    func getChangesNothing() async throws {
        let workspace = try StudioWorkspace()
        let before = try workspace.snapshot()
        let source = StudioWorkspace.quoted("{\"bookSourceUrl\": \"https://x\"}")
        for route in ["/api/save?source=\(source)", "/api/page?step=toc&file=toc.html&url=https://www.example.com/", "/api/step?step=toc",
                      "/api/test", "/api/evaluate"] {
            let response = try await workspace.get(route.addingPercentEncoding(withAllowedCharacters: .urlQueryAllowed) ?? route)
            #expect(response.status == 405, "\(route): \(response.status)")
            #expect(response.header("Allow") == "POST")
        }
        for route in ["/", "/api/state", "/frame/toc", "/api/propose?step=toc&node=1", "/assets/studio.js", "/nothing"] {
            _ = try await workspace.get(route)
        }
        #expect(try workspace.snapshot() == before)
        // Nor did a GET give the TOC step a page.
        #expect(workspace.server.app.session.page(.toc) == nil)
    }

    @Test("Save writes the source atomically and keeps the previous version as SOURCE.json.bak; invalid JSON is refused")
    func saveKeepsBackup() async throws {
        let workspace = try StudioWorkspace()
        let edited = StudioWorkspace.sourceText.replacingOccurrences(of: "My site", with: "My edited site")
        let response = try await workspace.post("/api/save", "{\"source\": \(StudioWorkspace.quoted(edited))}")
        #expect(response.status == 200, "\(response.text)")
        #expect(try String(contentsOfFile: workspace.sourcePath, encoding: .utf8) == edited)
        #expect(try String(contentsOfFile: workspace.sourcePath + ".bak", encoding: .utf8) == StudioWorkspace.sourceText)
        // No temporary file is left beside it, and nothing else appeared.
        let names = try FileManager.default.contentsOfDirectory(atPath: workspace.directory).sorted()
        #expect(names == ["fixture", "mysite.json", "mysite.json.bak"])
        let bad = try await workspace.post("/api/save", "{\"source\": \"{ not json\"}")
        #expect(bad.status == 400)
        #expect(try String(contentsOfFile: workspace.sourcePath, encoding: .utf8) == edited)
    }

    @Test("Saving keeps a private (0600) source private: the file and its .bak keep its mode and owner")
    func saveKeepsMode() async throws {
        let workspace = try StudioWorkspace()
        #expect(chmod(workspace.sourcePath, 0o600) == 0)
        let edited = StudioWorkspace.sourceText.replacingOccurrences(of: "My site", with: "My private site")
        let response = try await workspace.post("/api/save", "{\"source\": \(StudioWorkspace.quoted(edited))}")
        #expect(response.status == 200, "\(response.text)")
        for path in [workspace.sourcePath, workspace.sourcePath + ".bak"] {
            var info = stat()
            #expect(stat(path, &info) == 0)
            #expect(info.st_mode & 0o7777 == 0o600, "\(path): \(String(info.st_mode & 0o7777, radix: 8))")
            #expect(info.st_uid == getuid())
        }
        #expect(try String(contentsOfFile: workspace.sourcePath, encoding: .utf8) == edited)
    }

    @Test("The frame's copy of a page has no scripts, event handlers or live links, and a strict CSP")
    func frameIsSanitized() async throws {
        let workspace = try StudioWorkspace()
        let hostile = """
        <html><head><script>alert(1)</script><meta http-equiv="refresh" content="0;url=http://evil/">
        <link rel="stylesheet" href="http://evil/x.css"><base href="http://evil/"></head>
        <body onload="alert(2)"><a href="javascript:alert(3)" onclick="alert(4)">x</a>
        <img src="http://evil/pixel.png" srcset="http://evil/a.png 2x"><iframe src="http://evil/"></iframe>
        <svg><script>alert(5)</script></svg><form action="/api/save" method="post"><button formaction="/x">go</button></form>
        <p title='&quot;&gt;&lt;script&gt;'>text &lt;b&gt;</p><style>p{color:red}</style></body></html>
        """
        try hostile.write(toFile: workspace.fixtureDirectory + "/hostile.html", atomically: true, encoding: .utf8)
        #expect(try await workspace.post("/api/page", "{\"step\": \"book\", \"file\": \"hostile.html\", \"url\": \"https://www.example.com/\"}").status == 200)
        let frame = try await workspace.get("/frame/book")
        #expect(frame.status == 200)
        let policy = try #require(frame.header("Content-Security-Policy"))
        #expect(policy.contains("default-src 'none'") && policy.contains("sandbox") && !policy.contains("script-src"))
        // The studio's own stylesheet link is the one href the copy may have.
        let studioLink = "<link rel=\"stylesheet\" href=\"/assets/frame.css\">"
        #expect(frame.text.contains(studioLink))
        let html = frame.text.lowercased().replacingOccurrences(of: studioLink, with: "")
        for forbidden in ["<script", "onload", "onclick", "javascript:", " href=", " src=", " srcset=", "<iframe", "<meta http", "<base", "http://evil/x.css\"", " action=", " formaction="] {
            #expect(!html.contains(forbidden), "\(forbidden) in \(html)")
        }
        #expect(html.contains("data-br-href=\"\""))
        #expect(html.contains("text &lt;b&gt;"))
        #expect(html.contains("<style"))
    }
}

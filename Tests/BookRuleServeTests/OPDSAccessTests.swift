import BookRuleLibrary
@testable import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("bookrule serve: who may read the OPDS catalog (HTTP Basic with the token)", .timeLimit(.minutes(2 * TestTime.scale)))
struct OPDSAccessTests {
    static let token = String(repeating: "5c", count: 16)

    static func basic(_ user: String, _ password: String) -> (String, String) {
        ("Authorization", "Basic " + Data("\(user):\(password)".utf8).base64EncodedString())
    }

    @Test("With --token, /opds answers 401 with Basic, and 200 with the token as the password of user bookrule; no cookie needed")
    func tokenAsBasicPassword() async throws {
        let workspace = try await ServeWorkspace(chapters: 2, saved: 2, token: Self.token)
        let refused = try await workspace.client.send("GET", "/opds")
        #expect(refused.status == 401)
        #expect(refused.header("WWW-Authenticate")?.hasPrefix("Basic realm=\"") == true)
        #expect(refused.header("Set-Cookie") == nil)
        let allowed = try await workspace.client.send("GET", "/opds", headers: [Self.basic("bookrule", Self.token)])
        #expect(allowed.status == 200 && allowed.header("Set-Cookie") == nil)
        // Every page and file of the catalog, with the same credentials; none without.
        let epub = "/opds/books/\(workspace.book.id).epub"
        #expect(try await workspace.client.send("GET", epub, headers: [Self.basic("bookrule", Self.token)]).status == 200)
        #expect(try await workspace.client.send("GET", epub).status == 401)
        for wrong in [Self.basic("bookrule", "wrong-token-0123456789"), Self.basic("admin", Self.token),
                      ("Authorization", "Basic !!!"), ("Authorization", "Bearer " + Self.token)] {
            #expect(try await workspace.client.send("GET", "/opds", headers: [wrong]).status == 401, "\(wrong)")
        }
        // The token as ?token= works as elsewhere in serve, and every link of the answer carries it on, for a
        // reader that sends no Basic credentials and keeps no cookie.
        let viaQuery = try await workspace.client.send("GET", "/opds?token=\(Self.token)")
        #expect(viaQuery.status == 200)
        let root = try OPDSDocument(viaQuery.body).root
        let allBooks = try requireValue(root.atom("entry").last?.links.first?.href, "no All books link")
        #expect(allBooks == "/opds/all?token=\(Self.token)")
        let (_, all) = try await OPDSCatalogTests.document(workspace, allBooks)
        let file = try requireValue(all.atom("entry").first?.link("http://opds-spec.org/acquisition", type: "application/epub+zip"), "no EPUB link")
        #expect(file.href == "/opds/books/\(workspace.book.id).epub?token=\(Self.token)")
        #expect(try await workspace.client.send("GET", file.href).status == 200)
        let description = try OPDSDocument(try await workspace.client.send("GET", "/opds/search.xml?token=\(Self.token)").body).root
        let template = description.children.first { $0.name == "Url" }?.attributes["template"]
        #expect(template == "http://\(workspace.host)/opds/search?q={searchTerms}&token=\(Self.token)")
        // Basic is the catalog's: the Legado API still wants the token its own way.
        #expect(try await workspace.client.send("GET", "/getBookshelf", headers: [Self.basic("bookrule", Self.token)]).status == 403)
        // The gate's other checks hold: a foreign Host is refused whatever the credentials.
        let rebound = try await workspace.client.send("GET", "/opds", host: "attacker.test:\(workspace.server.port)",
                                                      headers: [Self.basic("bookrule", Self.token)])
        #expect(rebound.status == 403)
    }

    @Test("Off loopback a token is made and /opds asks for it; on loopback without --token nothing is asked")
    func offLoopback() async throws {
        let open = try await ServeWorkspace(chapters: 1, saved: 1)
        #expect(open.server.token == nil)
        #expect(try await open.client.send("GET", "/opds").status == 200)

        let reachable = try await ServeWorkspace(chapters: 1, saved: 1, listen: "0.0.0.0")
        let token = try requireValue(reachable.server.token, "no token off loopback")
        let refused = try await reachable.client.send("GET", "/opds")
        #expect(refused.status == 401 && refused.header("WWW-Authenticate")?.hasPrefix("Basic") == true)
        #expect(try await reachable.client.send("GET", "/opds", headers: [Self.basic("bookrule", token)]).status == 200)
    }
}

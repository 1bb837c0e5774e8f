import BookRuleHTTP
import Foundation
import Testing
import TestSupport

/// Every command that sends a source's requests sends them with the source's stored login: after one
/// `bookrule login`, the site sees the login's `X-Token` on each request of `search`, `info`, `toc`, `chapter`,
/// `test --live`, `fetch`, `export`'s pictures, `serve`'s chapter fetch and `update` (`TransportStack.transport(for:)` in each).
@Suite("the stored login on every command's requests", .serialized, .timeLimit(.minutes(4 * TestTime.scale)))
struct LoginOnEveryCommandTests {
    @Test("after `login`, search, info, toc, chapter, test --live, fetch, export (pictures), serve (a chapter) and update send the login")
    func everyCommandSendsTheLogin() async throws {
        let site = try LoginSite(maxRequests: 400, pictures: true)
        let scratch = try ScratchDirectory("login-every-command")
        let home = scratch.path
        let environment = ["XDG_CONFIG_HOME": home + "/config", "XDG_STATE_HOME": home + "/state", "XDG_DATA_HOME": home + "/data"]
        let source = try site.sourceFile(.script, in: home)
        let book = site.baseURL + "/book/1/"
        func run(_ script: String) async throws -> (status: Int32, output: String) {
            try await runBash(["-c", script], in: home, environment: environment)
        }
        /// The site's requests since `start` (the login's own token request left out): there must be some, and
        /// each must carry the token the login stored.
        func expectLogin(since start: Int, _ command: String) {
            let requests = site.server.records.dropFirst(start).filter { $0.path != "/api/token" }
            #expect(!requests.isEmpty, "\(command) sent no request")
            for record in requests {
                #expect(record.request.header("X-Token") == LoginSite.token, "\(command): \(record.method) \(record.target) without the login")
            }
        }

        let login = try await run("bookrule login --source \(source) --field user=\(LoginSite.user) --field password=\(LoginSite.password) --delay 0")
        try #require(login.status == 0, "\(login.output)")

        var start = site.server.records.count
        let search = try await run("bookrule search --source \(source) --delay 0 锁")
        #expect(search.status == 0 && search.output.contains(LoginSite.bookName), "\(search.output)")
        expectLogin(since: start, "search")

        start = site.server.records.count
        let info = try await run("bookrule info --source \(source) --delay 0 \(book)")
        #expect(info.status == 0 && info.output.contains(LoginSite.bookName), "\(info.output)")
        expectLogin(since: start, "info")

        start = site.server.records.count
        let toc = try await run("bookrule toc --source \(source) --delay 0 \(book)")
        #expect(toc.status == 0 && toc.output.contains("第2章"), "\(toc.output)")
        expectLogin(since: start, "toc")

        start = site.server.records.count
        let chapter = try await run("bookrule chapter --source \(source) --delay 0 \(book)1.html")
        #expect(chapter.status == 0 && chapter.output.contains(LoginSite.text(1)), "\(chapter.output)")
        expectLogin(since: start, "chapter")

        // A live check: its requests, under the check's anti-bot watch, go through the source's login too.
        start = site.server.records.count
        let check = try await run("bookrule test --live --keyword 锁 --delay 0 \(source)")
        #expect(check.status == 0 && check.output.contains("PASS  locked"), "\(check.output)")
        expectLogin(since: start, "test --live")

        // The first chapter only, with its picture; the second is left for serve.
        start = site.server.records.count
        let fetch = try await run("bookrule fetch --source \(source) --delay 0 --to 1 \(book)")
        #expect(fetch.status == 0, "\(fetch.output)")
        #expect(site.server.records.dropFirst(start).contains { $0.path == "/pic/1.png" })
        expectLogin(since: start, "fetch")

        // Without the kept picture, export fetches it again: through the source's transport, with the login,
        // so it is a picture and not the site's "please log in" page.
        let removed = try await run("find data -type d -name pictures -prune -exec rm -r {} + && ! find data -name '*.png' | grep -q .")
        try #require(removed.status == 0, "\(removed.output)")
        start = site.server.records.count
        let export = try await run("bookrule export \(LoginSite.bookName) --epub -o out --delay 0")
        #expect(export.status == 0 && export.output.contains("pictures: 1 fetched"), "\(export.output)")
        #expect(site.server.records.dropFirst(start).map(\.path) == ["/pic/1.png"])
        expectLogin(since: start, "export")

        start = site.server.records.count
        let served = try await chapterFromServe(book: book, index: 1, environment: environment)
        #expect(served.contains(LoginSite.text(2)), "\(served)")
        expectLogin(since: start, "serve")

        start = site.server.records.count
        let update = try await run("bookrule update --all --delay 0")
        #expect(update.status == 0, "\(update.output)")
        expectLogin(since: start, "update")
    }

    /// Starts `bookrule serve` on the library of `environment` and asks it for chapter `index` of `book` (a
    /// chapter not saved yet, so serve fetches it from the site); returns the answer's body.
    private func chapterFromServe(book: String, index: Int, environment: [String: String]) async throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: BuiltProducts.bookrule)
        process.arguments = ["serve", "--port", "0", "--delay", "0"]
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        defer {
            if process.isRunning { process.terminate() }
            process.waitUntilExit()
        }
        let url = await firstLine(of: output.fileHandleForReading).trimmingCharacters(in: .whitespacesAndNewlines)
        let port = try #require(url.wholeMatch(of: /http:\/\/127\.0\.0\.1:(\d+)\//), "\(url)").1
        let query = book.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? book
        let answer = try await CurlTransport().send(HTTPRequest(url: "http://127.0.0.1:\(port)/getBookContent?url=\(query)&index=\(index)"))
        #expect(answer.status == 200)
        return String(decoding: answer.body, as: UTF8.self)
    }
}

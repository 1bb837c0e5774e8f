import Foundation
import Testing
import TestSupport

@Suite("bookrule webdav, end to end against wsgidav", .serialized, .timeLimit(.minutes(3 * TestTime.scale)),
       .enabled(if: WebDAVServer.isAvailable, "wsgidav is not installed: scripts/install-deps.sh installs it into .build/webdav-venv"))
struct WebDAVCommandTests {
    static let shelf = #"[{"bookUrl":"https://site.test/book/1/","tocUrl":"https://site.test/book/1/","origin":"https://site.test","originName":"站","name":"长夜灯火","author":"某人","durChapterIndex":1,"durChapterPos":9,"durChapterTime":1700000000000,"durChapterTitle":"第2章","canUpdate":true}]"#
    static let sources = #"[{"bookSourceUrl":"https://site.test","bookSourceName":"站","bookSourceType":0,"ruleContent":{"content":"//p"}}]"#

    @Test("restore, sync and backup with the password from the environment, then from the vault; it is nowhere in clear; forget")
    func commands() async throws {
        let server = try WebDAVServer()
        let home = try ScratchDirectory("webdav-cli")
        try Data(Self.shelf.utf8).write(to: URL(fileURLWithPath: home.path + "/bookshelf.json"))
        try Data(Self.sources.utf8).write(to: URL(fileURLWithPath: home.path + "/bookSource.json"))
        try FileManager.default.createDirectory(atPath: server.root + "/legado", withIntermediateDirectories: true)
        let zip = server.root + "/legado/backup2026-12-01.zip"
        let made = try await runBash(["-c", "/usr/bin/python3 -c 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], \"w\") as z:\n    z.write(\"bookshelf.json\"); z.write(\"bookSource.json\")' \(zip)"],
                                     in: home.path)
        #expect(made.status == 0, "\(made.output)")
        let environment = ["XDG_CONFIG_HOME": home.path + "/config", "XDG_STATE_HOME": home.path + "/state",
                           "XDG_DATA_HOME": home.path + "/data"]
        let common = "--url \(server.baseURL) --library \(home.path)/library.sqlite"
        func run(_ line: String, password: String? = nil) async throws -> (status: Int32, output: String) {
            var extra = environment
            if let password { extra["BOOKRULE_WEBDAV_PASSWORD"] = password }
            return try await runBash(["-c", line + " </dev/null"], in: home.path, environment: extra)
        }

        let wrong = try await run("bookrule webdav restore \(common) --user \(server.user)", password: "wrong-pass-1")
        #expect(wrong.status == 1, "\(wrong.output)")
        #expect(wrong.output.contains("refused user \(server.user)") && !wrong.output.contains("wrong-pass-1"), "\(wrong.output)")
        #expect(!FileManager.default.fileExists(atPath: home.path + "/library.sqlite"), "a failed first restore left a library")
        let missing = try await run("bookrule webdav restore \(common) --user \(server.user) --name backup1999-01-01.zip",
                                    password: server.password)
        #expect(missing.status != 0 && !FileManager.default.fileExists(atPath: home.path + "/library.sqlite"), "\(missing.output)")

        let restore = try await run("bookrule webdav restore \(common) --user \(server.user)", password: server.password)
        #expect(restore.status == 0, "\(restore.output)")
        #expect(restore.output.contains("restored backup2026-12-01.zip") && restore.output.contains("1 added"), "\(restore.output)")
        let sync = try await run("bookrule webdav sync \(common)")
        #expect(sync.status == 0, "\(sync.output)")
        #expect(sync.output.contains("1 written there"), "\(sync.output)")
        #expect(server.file("legado/bookProgress/长夜灯火_某人.json") != nil)
        let backup = try await run("bookrule webdav backup \(common) --device cli")
        #expect(backup.status == 0 && backup.output.contains("uploaded"), "\(backup.output)")
        #expect(server.names(in: "legado").contains { $0.hasPrefix("backup") && $0.hasSuffix("-cli.zip") })

        // The password is in no file bookrule wrote: not the library, not the vault, not the kept files.
        let secret = Data(server.password.utf8)
        let files = FileManager.default.enumerator(atPath: home.path)?.compactMap { $0 as? String } ?? []
        #expect(!files.isEmpty)
        for file in files {
            guard let data = FileManager.default.contents(atPath: home.path + "/" + file) else { continue }
            #expect(data.range(of: secret) == nil, "the password is in \(file)")
        }

        let forget = try await run("bookrule webdav forget --url \(server.baseURL)")
        #expect(forget.status == 0 && forget.output.contains("removed the password kept for"), "\(forget.output)")
        let usage = try await run("bookrule webdav sync")
        #expect(usage.status == 2 && usage.output.contains("--url"), "\(usage.output)")
    }

    @Test("restore --toc reads each added book's table of contents from its restored source: the book can be fetched")
    func restoreReadsTOC() async throws {
        let server = try WebDAVServer()
        let site = try MirrorSite(host: "127.0.0.1", chapters: 6)
        let home = try ScratchDirectory("webdav-toc")
        let shelf = #"[{"bookUrl":"\#(site.bookURL)","tocUrl":"\#(site.bookURL)","origin":"\#(site.baseURL)","name":"\#(MirrorSite.bookName)","author":"\#(MirrorSite.author)","durChapterIndex":2,"durChapterPos":0}]"#
        try Data(shelf.utf8).write(to: URL(fileURLWithPath: home.path + "/bookshelf.json"))
        try Data(("[" + site.sourceJSON(named: "mirror") + "]").utf8).write(to: URL(fileURLWithPath: home.path + "/bookSource.json"))
        try FileManager.default.createDirectory(atPath: server.root + "/legado", withIntermediateDirectories: true)
        let zip = server.root + "/legado/backup2026-12-02.zip"
        let made = try await runBash(["-c", "/usr/bin/python3 -c 'import sys, zipfile\nwith zipfile.ZipFile(sys.argv[1], \"w\") as z:\n    z.write(\"bookshelf.json\"); z.write(\"bookSource.json\")' \(zip)"],
                                     in: home.path)
        #expect(made.status == 0, "\(made.output)")
        let environment = ["XDG_CONFIG_HOME": home.path + "/config", "XDG_STATE_HOME": home.path + "/state",
                           "XDG_DATA_HOME": home.path + "/data", "BOOKRULE_WEBDAV_PASSWORD": server.password]
        let restore = try await runBash(["-c", "bookrule webdav restore --toc --delay 0 --url \(server.baseURL) --user \(server.user) "
                                         + "--library \(home.path)/library.sqlite </dev/null"], in: home.path, environment: environment)
        #expect(restore.status == 0, "\(restore.output)")
        #expect(restore.output.contains("table of contents of \(MirrorSite.bookName): 6 chapters"), "\(restore.output)")
        #expect(site.chapterRequests.isEmpty, "chapters were fetched: \(site.chapterRequests)")
    }
}

import Foundation
import Testing
import BookRuleEngine
import BookRuleJSON
@testable import BookRuleLibrary
import TestSupport

/// A backup as the Legado app writes it (help/storage/Backup.kt): the files and fields of its entities as Gson
/// writes them, a local book beside an online one, and the app's settings, which bookrule must not keep.
enum LegadoAppBackup {
    static let sourceURL = "https://site.test"
    static let bookURL = "https://site.test/book/1/"

    static let bookshelf = #"""
        [{"bookUrl":"https://site.test/book/1/","tocUrl":"https://site.test/book/1/toc","origin":"https://site.test",
          "originName":"测试站","name":"长夜灯火","author":"某人","kind":"玄幻,连载","coverUrl":"https://site.test/c.jpg",
          "intro":"一本书","type":8,"group":1,"latestChapterTitle":"第3章","latestChapterTime":1700000000000,
          "lastCheckTime":1700000000000,"lastCheckCount":0,"totalChapterNum":3,"durChapterTitle":"第2章 夜",
          "durChapterIndex":1,"durChapterPos":120,"durChapterTime":1700000000000,"wordCount":"3万字","canUpdate":true,
          "order":0,"originOrder":0,"variable":"{\"token\":\"abc\"}","readConfig":{"reverseToc":false},"syncTime":0},
         {"bookUrl":"/storage/emulated/0/Books/本地.txt","tocUrl":"","origin":"loc_book","originName":"本地.txt",
          "name":"本地","author":"","type":264,"group":0,"durChapterIndex":4,"durChapterPos":0,"durChapterTime":1,
          "canUpdate":false,"order":0,"originOrder":0,"syncTime":0}]
        """#
    static let bookSource = #"""
        [{"bookSourceUrl":"https://site.test","bookSourceName":"测试站","bookSourceGroup":"示例","bookSourceType":0,
          "customOrder":0,"enabled":true,"enabledExplore":true,"enabledCookieJar":true,"lastUpdateTime":1700000000000,
          "respondTime":180000,"weight":0,"searchUrl":"/search?q={{key}}",
          "ruleSearch":{"bookList":"//li","name":"a/text()","bookUrl":"a/@href"},
          "ruleBookInfo":{"name":"//h1/text()"},"ruleToc":{"chapterList":"//dd/a","chapterName":"text()","chapterUrl":"@href"},
          "ruleContent":{"content":"//div[@id='content']"}}]
        """#
    static let replaceRule = #"""
        [{"id":1700000000001,"name":"去广告","group":"净化","pattern":"本站广告","replacement":"","scope":"",
          "scopeTitle":false,"scopeContent":true,"isEnabled":true,"isRegex":false,"timeoutMillisecond":3000,"order":0}]
        """#
    static let bookmark = #"[{"time":1700000000123,"bookName":"长夜灯火","bookAuthor":"某人","chapterIndex":1,"chapterPos":3,"chapterName":"第2章 夜","bookText":"夜色","content":"好句"}]"#
    static let readRecord = #"[{"deviceId":"a1b2c3","bookName":"长夜灯火","readTime":123456,"lastRead":1700000000000}]"#
    static let config = #"<?xml version='1.0'?><map><string name="webDavPassword">app-secret</string></map>"#

    static func zip(bookshelf: String = bookshelf, replaceRule: String = replaceRule) throws -> [UInt8] {
        try LegadoZip.archive([
            ("bookshelf.json", Array(bookshelf.utf8)), ("bookmark.json", Array(bookmark.utf8)),
            ("bookSource.json", Array(bookSource.utf8)), ("replaceRule.json", Array(replaceRule.utf8)),
            ("readRecord.json", Array(readRecord.utf8)), ("config.xml", Array(config.utf8)),
        ])
    }

    /// The progress file the app writes while reading (further than the backup's).
    static let progressFile = #"{"name":"长夜灯火","author":"某人","durChapterIndex":2,"durChapterPos":5,"durChapterTime":1700000500000,"durChapterTitle":"第3章"}"#
}

@Suite("WebDAV with the Legado app: restore, backup and progress against wsgidav", .enabled(if: WebDAVServer.isAvailable,
       "wsgidav is not installed: scripts/install-deps.sh installs it into .build/webdav-venv"))
struct LegadoWebDAVTests {
    /// The first object of the JSON list `bytes`.
    static func firstObject(_ bytes: [UInt8]?) throws -> JSONObject {
        let list = try JSONParser.parse(try #require(bytes)).value.arrayValue
        return try #require(list?.first?.value.objectValue)
    }

    static func bridge(_ server: WebDAVServer, library: String, password: String? = nil) throws -> LegadoWebDAV {
        let client = try WebDAVClient(url: server.baseURL, credentials: WebDAVCredentials(user: server.user, password: password ?? server.password))
        return LegadoWebDAV(client: client, libraryPath: library)
    }

    @Test("Restore takes the newest backup: the book with the further progress file, its source, the rule; kept files; twice merges")
    func restore() async throws {
        let server = try WebDAVServer()
        try server.put(Array("not this one".utf8), at: "legado/backup2026-11-01.zip")
        try FileManager.default.setAttributes([.modificationDate: Date(timeIntervalSince1970: 1_700_000_000)],
                                              ofItemAtPath: server.root + "/legado/backup2026-11-01.zip")
        try server.put(try LegadoAppBackup.zip(), at: "legado/backup2026-12-01.zip")
        try server.put(Array(LegadoAppBackup.progressFile.utf8), at: "legado/bookProgress/长夜灯火_某人.json")
        let scratch = try ScratchDirectory("webdav-restore")
        let library = scratch.path + "/library.sqlite"
        let store = try LibraryStore(path: library)
        let bridge = try Self.bridge(server, library: library)

        let report = try await bridge.restore(store: store)
        #expect(report.name == "backup2026-12-01.zip")
        #expect(report.summary.added.count == 1)
        #expect(report.summary.skipped == ["本地"])
        #expect(report.progressFromFiles == 1)
        let books = try store.books()
        #expect(books.map(\.name) == ["长夜灯火"])
        let book = try #require(books.first)
        #expect(book.url == LegadoAppBackup.bookURL && book.tocURL == "https://site.test/book/1/toc")
        #expect(book.author == "某人" && book.kind == "玄幻,连载" && book.variables == ["token": "abc"])
        #expect(try store.readingProgress()[book.id] == ReadingProgress(
            chapterIndex: 2, chapterPosition: 5, chapterTitle: "第3章", readAt: Date(timeIntervalSince1970: 1_700_000_500)))
        // The source is kept with its rules: the book can be fetched from it.
        let source = try #require(try store.storedSource(url: LegadoAppBackup.sourceURL))
        let loaded = try BookSource.load(bytes: Array(source.json.utf8), path: "restored.json")
        #expect(loaded.first?.name == "测试站")
        let rules = try ReplaceRuleSet.load(from: ReplaceRuleSet.path(forLibraryAt: library))
        #expect(rules.rules.map(\.id) == [1_700_000_000_001])
        #expect(rules.rules.first?.pattern == "本站广告")
        // Bookmarks and read records kept as they were; the app's settings (with its password) not at all.
        #expect(FileManager.default.contents(atPath: bridge.keptFolder + "/bookmark.json") == Data(LegadoAppBackup.bookmark.utf8))
        #expect(FileManager.default.contents(atPath: bridge.keptFolder + "/readRecord.json") == Data(LegadoAppBackup.readRecord.utf8))
        #expect(!FileManager.default.fileExists(atPath: bridge.keptFolder + "/config.xml"))

        // A second restore merges: nothing doubled.
        let again = try await bridge.restore(name: "backup2026-12-01.zip", store: store)
        #expect(again.summary.added.isEmpty && again.summary.updated == 1)
        #expect(try store.books().count == 1)
        #expect(try ReplaceRuleSet.load(from: ReplaceRuleSet.path(forLibraryAt: library)).rules.count == 1)
    }

    @Test("A wrong password, a zip that is not a backup and a broken file each fail with a clear error and change nothing")
    func failuresChangeNothing() async throws {
        let server = try WebDAVServer()
        try server.put(try LegadoAppBackup.zip(replaceRule: #"[{"name":"no pattern"}]"#), at: "legado/backup2026-12-02.zip")
        try server.put(try LegadoZip.archive([("hello.txt", Array("hi".utf8))]), at: "legado/backup2026-12-03.zip")
        let scratch = try ScratchDirectory("webdav-fail")
        let library = scratch.path + "/library.sqlite"
        let store = try LibraryStore(path: library)

        let wrong = try Self.bridge(server, library: library, password: "not-it")
        do {
            _ = try await wrong.restore(store: store)
            Issue.record("a wrong password restored")
        } catch {
            #expect("\(error)".contains("refused user \(server.user)"))
            #expect(!"\(error)".contains("not-it"))
        }
        let bridge = try Self.bridge(server, library: library)
        do {
            _ = try await bridge.restore(name: "backup2026-12-03.zip", store: store)
            Issue.record("a zip without Legado's files restored")
        } catch {
            #expect("\(error)".contains("not a Legado backup"))
        }
        do {
            _ = try await bridge.restore(name: "backup2026-12-02.zip", store: store)
            Issue.record("a backup with a broken replace rule restored")
        } catch {
            #expect("\(error)".contains("replaceRule.json"))
        }
        #expect(try store.books().isEmpty)
        #expect(try store.storedSources().isEmpty)
        #expect(!FileManager.default.fileExists(atPath: ReplaceRuleSet.path(forLibraryAt: library)))
        #expect(!FileManager.default.fileExists(atPath: bridge.keptFolder))
    }

    @Test("Backup writes Legado's files and fields, never over a same-named backup; sync moves progress both ways")
    func backupAndSync() async throws {
        let server = try WebDAVServer()
        try server.put(try LegadoAppBackup.zip(), at: "legado/backup2026-12-01.zip")
        let scratch = try ScratchDirectory("webdav-backup")
        let library = scratch.path + "/library.sqlite"
        let store = try LibraryStore(path: library)
        let bridge = try Self.bridge(server, library: library)
        _ = try await bridge.restore(store: store)

        let day = Date(timeIntervalSince1970: 1_765_000_000)
        let name = LegadoWebDAV.backupName(date: day)
        try server.put(Array("made on the phone".utf8), at: "legado/" + name)
        let report = try await bridge.backup(store: store, date: day)
        #expect(report.wantedName == name)
        #expect(report.name == String(name.dropLast(4)) + "-2.zip")
        #expect(server.file("legado/" + name) == Array("made on the phone".utf8))
        #expect(server.names(in: "legado").allSatisfy { !$0.hasSuffix(".tmp") })
        let zip = try #require(server.file("legado/" + report.name))
        let entries = try LegadoZip.entries(of: zip) { _ in true }
        #expect(Set(entries.keys) == ["bookshelf.json", "bookSource.json", "replaceRule.json", "bookmark.json", "readRecord.json"])
        #expect(entries["bookmark.json"] == Array(LegadoAppBackup.bookmark.utf8))
        let shelf = try Self.firstObject(entries["bookshelf.json"])
        #expect(shelf.keys.prefix(4) == ["bookUrl", "tocUrl", "origin", "originName"])
        #expect(shelf["durChapterIndex"]?.value == .number("1"))
        #expect(shelf["canUpdate"]?.value == .bool(true))
        // The app's own settings of the book, kept from the restore, go back as they came.
        #expect(shelf["group"]?.value == .number("1"))
        #expect(shelf["wordCount"]?.value == .string("3万字"))
        #expect(shelf["readConfig"]?.value.objectValue?["reverseToc"]?.value == .bool(false))
        let source = try Self.firstObject(entries["bookSource.json"])
        #expect(source["respondTime"]?.value == .number("180000"))
        #expect(source["ruleToc"]?.value.objectValue?["chapterList"]?.value == .string("//dd/a"))
        let rule = try Self.firstObject(entries["replaceRule.json"])
        #expect(rule["id"]?.value == .number("1700000000001"))
        // What the backup holds restores again into another library.
        let other = try LibraryStore(path: scratch.path + "/other.sqlite")
        let again = try await LegadoWebDAV(client: bridge.client, libraryPath: scratch.path + "/other.sqlite")
            .restore(name: report.name, store: other)
        #expect(again.summary.added.count == 1)

        // Progress: the library's, further, goes up as Legado's BookProgress JSON; the server's, further, comes down.
        let book = try #require(try store.books().first)
        try store.saveProgress(bookID: book.id, ReadingProgress(chapterIndex: 2, chapterPosition: 40, chapterTitle: "第3章",
                                                                readAt: Date(timeIntervalSince1970: 1_765_000_100)))
        let pushed = try await bridge.syncProgress(store: store)
        #expect(pushed.pushed == ["长夜灯火"] && pushed.pulled.isEmpty)
        let file = try #require(server.file("legado/bookProgress/长夜灯火_某人.json"))
        let object = try #require(try JSONParser.parse(file).value.objectValue)
        #expect(object.keys == ["name", "author", "durChapterIndex", "durChapterPos", "durChapterTime", "durChapterTitle"])
        #expect(object["durChapterPos"]?.value == .number("40"))
        #expect(object["durChapterTime"]?.value == .number("1765000100000"))
        try server.put(Array(#"{"name":"长夜灯火","author":"某人","durChapterIndex":3,"durChapterPos":0,"durChapterTime":1765000200000,"durChapterTitle":"第4章"}"#.utf8),
                       at: "legado/bookProgress/长夜灯火_某人.json")
        let pulled = try await bridge.syncProgress(store: store)
        #expect(pulled.pulled == ["长夜灯火"] && pulled.pushed.isEmpty)
        #expect(try store.readingProgress()[book.id]?.chapterIndex == 3)
        let quiet = try await bridge.syncProgress(store: store)
        #expect(quiet == WebDAVProgressReport())
    }
}

@Suite("Legado's backup zip and progress files as untrusted input")
struct LegadoBackupInputTests {
    @Test("File names are made safe as Legado's normalizeFileName does; progress compares by Legado's rule")
    func progressNames() throws {
        #expect(LegadoBookProgress.fileName(name: "a/b:c?", author: "某|人") == "a_b_c__某_人.json")
        let here = ReadingProgress(chapterIndex: 2, chapterPosition: 10, chapterTitle: "", readAt: Date())
        #expect(LegadoBookProgress.isFurther(ReadingProgress(chapterIndex: 2, chapterPosition: 11, chapterTitle: "", readAt: .distantPast), than: here))
        #expect(!LegadoBookProgress.isFurther(ReadingProgress(chapterIndex: 1, chapterPosition: 999, chapterTitle: "", readAt: Date()), than: here))
        #expect(LegadoBookProgress(json: Array("[1]".utf8)) == nil)
        #expect(LegadoBookProgress(json: Array(#"{"name":"x","author":"y","durChapterIndex":-1}"#.utf8)) == nil)
        #expect(LegadoWebDAV.backupName(date: Date(timeIntervalSince1970: 1_765_000_000), device: "pixel:7",
                                         timeZone: TimeZone(identifier: "UTC")!) == "backup2025-12-06-pixel_7.zip")
    }

    @Test("RSS sources go both ways: rssSources.json into the library's table by sourceUrl, the table back as Legado's RssSource",
          .enabled(if: WebDAVServer.isAvailable, "wsgidav is not installed: scripts/install-deps.sh installs it"))
    func rssSourcesBothWays() async throws {
        let rss = #"""
            [{"sourceUrl":"https://news.test/","sourceName":"旧名","sortUrl":"头条::/top"},
             {"sourceUrl":"","sourceName":"没有网址"},
             {"sourceUrl":"https://news.test/","sourceName":"新闻","sortUrl":"头条::/top\n体育::/sport","ruleArticles":"//li",
              "enabled":false,"appOnly":"kept"}]
            """#
        let server = try WebDAVServer()
        var files = try LegadoZip.entries(of: try LegadoAppBackup.zip()) { _ in true }.map { ($0.key, $0.value) }
        files.append(("rssSources.json", Array(rss.utf8)))
        try server.put(try LegadoZip.archive(files), at: "legado/backup2026-12-01.zip")
        let scratch = try ScratchDirectory("webdav-rss")
        let library = scratch.path + "/library.sqlite"
        let store = try LibraryStore(path: library)
        let bridge = try LegadoWebDAVTests.bridge(server, library: library)
        // What an earlier bookrule kept beside the library unchanged: one source the backup has, one it has not.
        try FileManager.default.createDirectory(atPath: bridge.keptFolder, withIntermediateDirectories: true)
        let legacy = #"[{"sourceUrl":"https://old.test/","sourceName":"旧源"},{"sourceUrl":"https://news.test/","sourceName":"陈旧"}]"#
        try legacy.write(toFile: bridge.keptFolder + "/rssSources.json", atomically: true, encoding: .utf8)
        let before = try bridge.backupZip(store: store)
        let legacyBytes = try LegadoZip.entries(of: before) { _ in true }["rssSources.json"]
        let legacyOnly = try JSONParser.parse(try #require(legacyBytes))
        #expect(legacyOnly.value.arrayValue?.compactMap { $0.value.objectValue?["sourceName"]?.value.stringValue } == ["旧源", "陈旧"],
                "a backup before any restore loses none of the kept RSS sources")

        let report = try await bridge.restore(store: store)
        #expect(report.summary.rssSources == 1)
        #expect(!report.keptFiles.contains("rssSources.json"))
        #expect(!FileManager.default.fileExists(atPath: bridge.keptFolder + "/rssSources.json"), "the stale copy is gone")
        let kept = try store.storedRssSources()
        #expect(kept.map(\.sourceURL) == ["https://news.test/"] && kept.map(\.sourceName) == ["新闻"], "the later entry wins")
        let newsJSON = try #require(kept.first).json
        let news = try #require(try JSONParser.parse(newsJSON).value.objectValue)
        #expect(news["appOnly"]?.value == .string("kept") && news["enabled"]?.value == .bool(false))
        // The library's RSS sources are the ones serve and `bookrule rss` use: one saved there since goes back too.
        try store.saveRssSources([RssSourceRecord(sourceURL: "https://blog.test/", sourceName: "博客",
                                                  json: #"{"sourceUrl":"https://blog.test/","sourceName":"博客"}"#)])

        let zip = try bridge.backupZip(store: store)
        let entries = try LegadoZip.entries(of: zip) { _ in true }
        let list = try JSONParser.parse(try #require(entries["rssSources.json"])).value.arrayValue ?? []
        let objects = list.compactMap { $0.value.objectValue }
        #expect(objects.map { $0["sourceUrl"]?.value.stringValue } == ["https://blog.test/", "https://news.test/"])
        let blog = try #require(objects.first)
        #expect(blog.keys.prefix(3) == ["sourceUrl", "sourceName", "sourceIcon"])
        #expect(blog["enabled"]?.value == .bool(true) && blog["articleStyle"]?.value == .number("0")
                && blog["enableJs"]?.value == .bool(true) && blog["customOrder"]?.value == .number("0"))
        #expect(objects[1]["enabled"]?.value == .bool(false) && objects[1]["appOnly"]?.value == .string("kept"))
        #expect(objects[1]["sortUrl"]?.value == .string("头条::/top\n体育::/sport"))

        // The app restores the zip bookrule made: read back, the same two sources.
        let roundTrip = try LegadoBackup(zip: zip)
        #expect(roundTrip.rssSources.map(\.sourceName) == ["博客", "新闻"])
    }

    @Test("A zip that is not one, too many entries, or JSON that is not a list is refused with a reason")
    func boundedZip() throws {
        #expect(throws: LegadoBackupError.self) { try LegadoBackup(zip: Array("PK not really".utf8)) }
        let many = try LegadoZip.archive((0...LegadoZip.maxEntries).map { ("f\($0).json", [UInt8]()) })
        #expect(throws: LegadoBackupError.tooManyEntries(count: LegadoZip.maxEntries + 1, limit: LegadoZip.maxEntries)) {
            try LegadoBackup(zip: many)
        }
        let object = try LegadoZip.archive([("bookshelf.json", Array("{\"a\":1}".utf8))])
        #expect(throws: LegadoBackupError.notAList(file: "bookshelf.json", found: "object")) { try LegadoBackup(zip: object) }
        let nested = try LegadoZip.archive([("bookSource.json", Array((String(repeating: "[", count: 5000)).utf8))])
        #expect(throws: LegadoBackupError.self) { try LegadoBackup(zip: nested) }
        // A large entry of zeros compresses to almost nothing; it is refused by what it decompresses to.
        let big = try LegadoZip.archive([("bookSource.json", [UInt8](repeating: 0x20, count: LegadoZip.maxEntryBytes + 1))])
        #expect(big.count < 1 << 20)
        #expect(throws: LegadoBackupError.entryTooLarge(name: "bookSource.json", limit: LegadoZip.maxEntryBytes)) {
            try LegadoBackup(zip: big)
        }
    }
}

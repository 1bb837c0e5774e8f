import BookRuleJSON
import BookRuleLibrary
import BookRuleServe
import Foundation
import Testing
import TestSupport

/// The JSON type of each field, as Gson writes Legado's entities.
enum Kind: Equatable {
    case string, number, bool
}

func kind(_ value: JSONValue?) -> Kind? {
    switch value {
    case .string?: return .string
    case .number?: return .number
    case .bool?: return .bool
    default: return nil
    }
}

@Suite("bookrule serve: every endpoint answers Legado's envelope and entities, names and JSON types",
       .timeLimit(.minutes(2 * TestTime.scale)))
struct LegadoShapeTests {
    static let bookFields: [String: Kind] = [
        "bookUrl": .string, "tocUrl": .string, "origin": .string, "originName": .string, "name": .string,
        "author": .string, "type": .number, "group": .number, "latestChapterTitle": .string,
        "latestChapterTime": .number, "lastCheckTime": .number, "lastCheckCount": .number, "totalChapterNum": .number,
        "durChapterIndex": .number, "durChapterPos": .number, "durChapterTime": .number, "canUpdate": .bool,
        "order": .number, "originOrder": .number, "syncTime": .number,
    ]

    @Test("getBookshelf lists the library's books as Legado's Book: every field named and typed as Gson writes it")
    func bookshelf() async throws {
        let workspace = try await ServeWorkspace()
        let envelope = try await workspace.get("/getBookshelf")
        #expect(envelope.keys == ["isSuccess", "errorMsg", "data"])
        #expect(envelope["errorMsg"]?.value == .string(""))
        let books = try #require(try ServeWorkspace.data(envelope).arrayValue)
        #expect(books.count == 1)
        let book = try #require(books.first?.value.objectValue)
        for (name, expected) in Self.bookFields {
            #expect(kind(book[name]?.value) == expected, "\(name): \(book[name]?.value.serialized() ?? "missing")")
        }
        #expect(book["bookUrl"]?.value == .string(workspace.site.bookURL))
        #expect(book["origin"]?.value == .string(workspace.site.baseURL))
        #expect(book["originName"]?.value == .string("mirror"))
        #expect(book["name"]?.value == .string(MirrorSite.bookName))
        #expect(book["totalChapterNum"]?.value.intValue == 8)
        #expect(book["latestChapterTitle"]?.value == .string(MirrorSite.title(8, style: .arabic)))
        #expect(book["type"]?.value.intValue == 8)  // BookType.text
        // Gson writes no nulls: a field without a value is absent, never null.
        #expect(!book.members.contains { $0.value.value == .null })
        #expect(book["durChapterTitle"] == nil)
    }

    @Test("getChapterList lists the TOC as Legado's BookChapter: url, title, isVolume, baseUrl, bookUrl, index")
    func chapterList() async throws {
        let workspace = try await ServeWorkspace()
        let url = ServeWorkspace.encoded(workspace.site.bookURL)
        let chapters = try #require(try ServeWorkspace.data(try await workspace.get("/getChapterList?url=\(url)")).arrayValue)
        #expect(chapters.count == 8)
        for (offset, node) in chapters.enumerated() {
            let chapter = try #require(node.value.objectValue)
            #expect(chapter.keys == ["url", "title", "isVolume", "baseUrl", "bookUrl", "index", "isVip", "isPay"])
            #expect(chapter["index"]?.value.intValue == offset)
            #expect(chapter["isVolume"]?.value == .bool(false))
            #expect(chapter["title"]?.value == .string(MirrorSite.title(offset + 1, style: .arabic)))
            #expect(chapter["bookUrl"]?.value == .string(workspace.site.bookURL))
            #expect(kind(chapter["url"]?.value) == .string)
        }
        // refreshToc reads the site again and answers the same shape.
        let before = workspace.site.server.records.filter { $0.path == "/book/1/" }.count
        let refreshed = try #require(try ServeWorkspace.data(try await workspace.get("/refreshToc?url=\(url)")).arrayValue)
        #expect(refreshed.count == 8)
        #expect(workspace.site.server.records.filter { $0.path == "/book/1/" }.count == before + 1)
    }

    @Test("A failure is {isSuccess: false, errorMsg} with no data member, as Gson writes a null data")
    func failureEnvelope() async throws {
        let workspace = try await ServeWorkspace()
        let missing = try await workspace.get("/getBookContent?url=\(ServeWorkspace.encoded(workspace.site.bookURL))&index=99")
        #expect(missing.keys == ["isSuccess", "errorMsg"])
        #expect(missing["isSuccess"]?.value == .bool(false))
        #expect(missing["errorMsg"]?.value.stringValue?.isEmpty == false)
        let noURL = try await workspace.get("/getChapterList")
        #expect(noURL["isSuccess"]?.value == .bool(false))
    }

    /// Whether `entity` holds every member of `kept` with the same value (the entity adds Legado's defaults).
    static func holds(_ entity: JSONValue?, _ kept: JSONValue) -> Bool {
        guard let entity = entity?.objectValue, let kept = kept.objectValue else { return false }
        return kept.members.allSatisfy { entity[$0.key]?.value == $0.value.value }
    }

    @Test("getBookSources gives back the imported source's JSON (with Legado's defaults); saveBookSource and getBookSource round-trip an edit; deleteBookSources keeps a source a book is on")
    func sources() async throws {
        let workspace = try await ServeWorkspace()
        let all = try #require(try ServeWorkspace.data(try await workspace.get("/getBookSources")).arrayValue)
        let file = try JSONParser.parse(try LocalFile.read(workspace.sourcePath)).value
        #expect(all.count == 1 && Self.holds(all.first?.value, file))
        #expect(try workspace.store.storedSources().map(\.sourceURL) == [workspace.site.baseURL])

        let edited = #"{"bookSourceUrl":"http://other.test","bookSourceName":"other","bookSourceType":0,"searchUrl":"/s?q={{key}}","ruleSearch":{"bookList":"//li"}}"#
        let saved = try await workspace.post("/saveBookSource", edited)
        #expect(saved["isSuccess"]?.value == .bool(true))
        let back = try ServeWorkspace.data(try await workspace.get("/getBookSource?url=\(ServeWorkspace.encoded("http://other.test"))"))
        #expect(Self.holds(back, try JSONParser.parse(edited).value))
        let unnamed = try await workspace.post("/saveBookSource", #"{"bookSourceUrl":"http://x.test"}"#)
        #expect(unnamed["isSuccess"]?.value == .bool(false))

        let batch = try await workspace.post("/saveBookSources", "[\(edited), {\"bookSourceName\": \"\"}]")
        #expect(try ServeWorkspace.data(batch).arrayValue?.count == 1)

        let deleted = try await workspace.post("/deleteBookSources",
                                               #"[{"bookSourceUrl":"http://other.test"},{"bookSourceUrl":"\#(workspace.site.baseURL)"}]"#)
        #expect(deleted["isSuccess"]?.value == .bool(true))
        #expect(try workspace.store.storedSources().map(\.sourceURL) == [workspace.site.baseURL])
    }

    @Test("Replace rules: saveReplaceRule adds, getReplaceRules answers them as a JSON string of ReplaceRule entities, testReplaceRule runs one, deleteReplaceRule removes it")
    func replaceRules() async throws {
        let workspace = try await ServeWorkspace()
        let rule = #"{"name":"ad","pattern":"星+","replacement":"*","isRegex":true,"scopeContent":true}"#
        #expect(try ServeWorkspace.data(try await workspace.post("/saveReplaceRule", rule)) == .string(""))
        let listed = try ServeWorkspace.data(try await workspace.get("/getReplaceRules"))
        let text = try #require(listed.stringValue, "data is the rules' JSON text, as Legado answers")
        let rules = try #require(try JSONParser.parse(text).value.arrayValue)
        let first = try #require(rules.first?.value.objectValue)
        let expected: [String: Kind] = ["id": .number, "name": .string, "pattern": .string, "replacement": .string,
                                        "scopeTitle": .bool, "scopeContent": .bool, "isEnabled": .bool, "isRegex": .bool,
                                        "timeoutMillisecond": .number, "order": .number]
        for (name, type) in expected { #expect(kind(first[name]?.value) == type, "\(name)") }
        #expect(try ReplaceRuleSet.load(from: ReplaceRuleSet.path(forLibraryAt: workspace.store.path)).rules.map(\.pattern) == ["星+"])

        let tested = try await workspace.post("/testReplaceRule", #"{"rule":\#(rule),"text":"a星星b"}"#)
        #expect(try ServeWorkspace.data(tested) == .string("a*b"))

        let id = try #require(first["id"]?.value.intValue)
        #expect(try ServeWorkspace.data(try await workspace.post("/deleteReplaceRule", #"{"id":\#(id),"pattern":"星+"}"#)) == .string(""))
        #expect(try ReplaceRuleSet.load(from: ReplaceRuleSet.path(forLibraryAt: workspace.store.path)).rules.isEmpty)
    }

    @Test("saveReadConfig keeps any JSON the client sends (text/plain too) and getReadConfig answers it as a string")
    func readConfig() async throws {
        let workspace = try await ServeWorkspace()
        let none = try await workspace.get("/getReadConfig")
        #expect(none["isSuccess"]?.value == .bool(false))
        let config = #"{"theme":2,"font":0,"fontSize":18,"readWidth":800}"#
        #expect(try ServeWorkspace.data(try await workspace.post("/saveReadConfig", config)) == .string(""))
        #expect(try ServeWorkspace.data(try await workspace.get("/getReadConfig")) == .string(config))
        let broken = try await workspace.post("/saveReadConfig", "{not json")
        #expect(broken["isSuccess"]?.value == .bool(false))
        #expect(try ServeWorkspace.data(try await workspace.get("/getReadConfig")) == .string(config))
    }

    @Test("saveBook adds a search result (reading its page and TOC through the source) and deleteBook removes it")
    func saveAndDeleteBook() async throws {
        let workspace = try await ServeWorkspace()
        try workspace.store.removeBook(id: workspace.book.id)
        let result = #"{"bookUrl":"\#(workspace.site.bookURL)","origin":"\#(workspace.site.baseURL)","originName":"mirror","name":"\#(MirrorSite.bookName)","author":"\#(MirrorSite.author)","type":8,"respondTime":12}"#
        #expect(try ServeWorkspace.data(try await workspace.post("/saveBook", result)) == .string(""))
        let book = try #require(try workspace.store.books().first)
        #expect(book.name == MirrorSite.bookName)
        #expect(try workspace.store.chapters(bookID: book.id).count == 8)
        #expect(try ServeWorkspace.data(try await workspace.post("/deleteBook", result)) == .string(""))
        #expect(try workspace.store.books().isEmpty)
        let empty = try await workspace.get("/getBookshelf")
        #expect(empty["isSuccess"]?.value == .bool(false))
    }
}

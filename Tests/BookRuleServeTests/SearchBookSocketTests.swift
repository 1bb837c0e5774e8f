import BookRuleJSON
import BookRuleServe
import Testing
import TestSupport

@Suite("searchBook: Legado's SearchBook entities in batches as sources answer", .serialized,
       .timeLimit(.minutes(2 * TestTime.scale)))
struct SearchBookSocketTests {
    @Test func booksComeInBatchesGroupedAcrossSourcesWithGsonsFieldsAndAFailingSourceDoesNotEndTheSearch() async throws {
        let site = try LegadoSocketSite()
        let (messages, closeCode) = try await site.exchange("/searchBook", #"{"key":"镜中"}"#)
        #expect(closeCode == 1000)
        var books: [JSONObject] = []
        for message in messages {
            let batch = try #require(try JSONParser.parse(message).value.arrayValue, "not an array: \(message)")
            #expect(!batch.isEmpty)
            books += try batch.map { try #require($0.value.objectValue) }
        }
        // Two books: the mirrors' one (found by both, sent once) and the one the chapter-named source reads.
        let names = books.compactMap { $0["name"]?.value.stringValue }
        #expect(names.filter { $0 == MirrorSite.bookName }.count == 1, "\(names)")
        #expect(names.count == 2, "\(names)")
        #expect(names.contains { $0.hasPrefix("第3章") })
        for book in books {
            for key in ["name", "author", "bookUrl", "origin", "originName", "tocUrl", "intro", "wordCount", "latestChapterTitle"] {
                #expect(book[key]?.value.stringValue != nil, "\(key) in \(book.keys)")
            }
            for key in ["type", "time", "originOrder", "chapterWordCount", "respondTime"] {
                #expect(book[key]?.value.intValue != nil, "\(key) in \(book.keys)")
            }
            #expect(book["type"]?.value.intValue == 8)
            // What Legado leaves null, Gson leaves out.
            #expect(book["coverUrl"] == nil && book["kind"] == nil)
        }
        let mirrorBook = try #require(books.first { $0["name"]?.value.stringValue == MirrorSite.bookName })
        #expect(mirrorBook["author"]?.value.stringValue == MirrorSite.author)
        #expect(site.mirrors.map(\.bookURL).contains(mirrorBook["bookUrl"]?.value.stringValue ?? ""))
        #expect(site.mirrors.map(\.baseURL).contains(mirrorBook["origin"]?.value.stringValue ?? ""))
        // From whichever mirror answered first: each writes its titles its own way.
        #expect([MirrorSite.title(3, style: .arabic), MirrorSite.title(3, style: .chinese)]
            .contains(mirrorBook["latestChapterTitle"]?.value.stringValue ?? ""))
        // Both mirrors were searched (the unreachable source did not stop the others).
        for mirror in site.mirrors {
            #expect(mirror.server.records.contains { $0.path == "/search" })
        }
        await site.server.stopAwaitingWebSocketHandlers()
    }

    @Test func aMessageThatIsNotJSONOrHasNoKeyIsAnsweredAndClosed() async throws {
        let site = try LegadoSocketSite()
        let notJSON = try await site.exchange("/searchBook", #"{"key":"a"b"}"#)
        #expect(notJSON.messages.count == 1 && notJSON.messages[0].contains("JSON"))
        #expect(notJSON.closeCode == 1000)
        let blank = try await site.exchange("/searchBook", #"{"key":"  "}"#)
        #expect(blank.messages == ["key must not be empty"])
        #expect(site.mirrors.allSatisfy { $0.server.records.isEmpty })
        await site.server.stopAwaitingWebSocketHandlers()
    }
}

import BookRuleLibrary
import Foundation
import Testing
import TestSupport
@testable import BookRuleServe

@Suite("An OPDS download's file: made again only when what the export reads changed")
struct OPDSBookFileTests {
    @Test("asking again for an unchanged book reads no text; a new chapter text, an edited rule or a new cover makes a new file")
    func madeOnlyWhenChanged() throws {
        let scratch = try ScratchDirectory("opds-file")
        let (store, book) = try savedTwoChapterBook(in: scratch.path, name: "长夜", author: "某人",
                                                   chapters: [("第一章", "天色已晚。"), ("第二章", "灯火未熄。")])
        var rules = ReplaceRuleSet(rules: [])
        func reads() -> Int { OPDSBookFile.exportsRead.withLock { $0[store.path] ?? 0 } }
        let first = try OPDSBookFile.make(for: book, format: .epub, store: store, rules: rules)
        #expect(reads() == 1)
        for _ in 0..<3 {
            #expect(try OPDSBookFile.make(for: book, format: .epub, store: store, rules: rules) == first)
        }
        #expect(reads() == 1)

        try store.saveChapter(bookID: book.id, url: "http://127.0.0.9/book/1/2.html", text: "灯火已熄。")
        let rewritten = try OPDSBookFile.make(for: book, format: .epub, store: store, rules: rules)
        #expect(reads() == 2 && rewritten.digest != first.digest)

        rules = ReplaceRuleSet(rules: [ReplaceRule(name: "lamp", pattern: "灯火", replacement: "烛光", isRegex: false)])
        let replaced = try OPDSBookFile.make(for: book, format: .epub, store: store, rules: rules)
        #expect(reads() == 3 && replaced.digest != rewritten.digest)

        let cover = store.coverPath(bookID: book.id)
        try FileManager.default.createDirectory(atPath: (cover as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: URL(fileURLWithPath: cover))
        _ = try OPDSBookFile.make(for: book, format: .epub, store: store, rules: rules)
        #expect(reads() == 4)
        _ = try OPDSBookFile.make(for: book, format: .txt, store: store, rules: rules)
        #expect(reads() == 5)
    }
}

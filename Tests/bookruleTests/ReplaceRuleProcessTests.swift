import BookRuleLibrary
import Foundation
import Testing
import TestSupport

/// ReplaceRuleTests' run of the `bookrule` executable (the rules themselves are tested in BookRuleLibraryTests).
@Suite("Replace rules (Legado's replaceRule JSON) applied to exports, never to saved text")
struct ReplaceRuleTests {
    @Test("rules imported from Legado's JSON change the exported TXT, not the saved text; --no-replace writes it as saved",
          .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first"))
    func importedRulesChangeExportNotSavedText() async throws {
        let scratch = try ScratchDirectory("replace")
        let (store, book) = try savedTwoChapterBook(in: scratch.path, name: "星辰之书", author: "无名", chapters: [
            ("第一章 广告", "张三来了。\n本站网址www.ad.com请收藏"), ("第二章 星辰", "张三走了。"),
        ])
        let library = scratch.path + "/library.sqlite"
        let rules = scratch.path + "/rules.json"
        try #"""
        [{"id":1,"name":"去广告","group":"净化","pattern":"本站网址\\S+请收藏","replacement":"","isRegex":true,
          "scope":"","scopeTitle":false,"scopeContent":true,"isEnabled":true,"order":1,"timeoutMillisecond":3000},
         {"id":2,"name":"改名","pattern":"张三","replacement":"李四","isRegex":false,"order":2}]
        """#.write(toFile: rules, atomically: true, encoding: .utf8)
        let imported = try await BookruleProcess(["rules", "import", rules, "--library", library]).wait()
        #expect(imported.status == 0, "\(imported.output)")
        #expect(imported.output.contains("imported 2 replace rule(s)"))
        let listed = try await BookruleProcess(["rules", "list", "--library", library]).wait()
        #expect(listed.output.contains("1  去广告"), "\(listed.output)")
        #expect(listed.output.contains("2  改名"))

        let exported = try await BookruleProcess(["export", "1", "--txt", "-o", scratch.path + "/out.txt", "--explain",
                                                  "--library", library]).wait()
        #expect(exported.status == 0, "\(exported.output)")
        #expect(exported.output.contains("replace rule \"改名\": 2 hit(s)"), "\(exported.output)")
        let text = try String(contentsOfFile: scratch.path + "/out.txt", encoding: .utf8)
        #expect(text.contains("李四来了。"))
        #expect(text.contains("李四走了。"))
        #expect(!text.contains("张三"))
        #expect(!text.contains("www.ad.com"))
        #expect(try store.text(bookID: book.id, url: "http://127.0.0.9/book/1/1.html") == "张三来了。\n本站网址www.ad.com请收藏")

        let raw = try await BookruleProcess(["export", "1", "--txt", "-o", scratch.path + "/raw.txt", "--no-replace",
                                             "--library", library]).wait()
        #expect(raw.status == 0, "\(raw.output)")
        #expect(try String(contentsOfFile: scratch.path + "/raw.txt", encoding: .utf8).contains("张三来了。"))

        let tested = try await BookruleProcess(["rules", "test", "2", "张三和张三", "--explain", "--library", library]).wait()
        #expect(tested.status == 0)
        #expect(tested.output.contains("李四和李四"))
        #expect(tested.output.contains("改名: 2 hit(s)"))
        let removed = try await BookruleProcess(["rules", "remove", "1", "--library", library]).wait()
        #expect(removed.status == 0)
        #expect(try ReplaceRuleSet.load(from: ReplaceRuleSet.path(forLibraryAt: library)).rules.map(\.name) == ["改名"])
    }
}

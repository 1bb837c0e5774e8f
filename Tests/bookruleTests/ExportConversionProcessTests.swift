import Foundation
import Testing
import TestSupport

/// ExportConversionTests' run of the `bookrule` executable (the conversion itself is tested in BookRuleLibraryTests).
@Suite("Export with Chinese script conversion (OpenCC)",
       .enabled(if: FileManager.default.fileExists(atPath: "/usr/share/opencc/t2s.json"), "needs libopencc-data"))
struct ExportConversionTests {
    @Test("bookrule export --convert t2s writes simplified text; a bad --convert is a usage error",
          .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first"))
    func exportCommand() async throws {
        let folder = try temporaryDirectory()
        _ = try savedTwoChapterBook(in: folder, name: "漢字之書", author: "無名", intro: "簡介：漢字", chapters: [
            ("第一章 漢字", "漢字的歷史。"), ("第二章 書籍", "這本書籍。"),
        ])
        let library = folder + "/library.sqlite"
        let run = try await BookruleProcess(["export", "1", "--txt", "--convert", "t2s", "-o", folder + "/out.txt",
                                             "--library", library]).wait()
        #expect(run.status == 0, "\(run.output)")
        let text = try String(contentsOfFile: folder + "/out.txt", encoding: .utf8)
        #expect(text.contains("汉字"))
        #expect(!text.contains("漢字"))
        let bad = try await BookruleProcess(["export", "1", "--txt", "--convert", "x2y", "--library", library]).wait()
        #expect(bad.status == 2)
        #expect(bad.output.contains("--convert takes t2s"))
    }
}

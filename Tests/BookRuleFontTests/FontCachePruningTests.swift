import Foundation
import Testing
import TestSupport
@testable import BookRuleFont

@Suite("The font cache is pruned: least recently used decoded maps past the limit, indexes of other formats")
struct FontCachePruningTests {
    /// `count` decoded maps in `folder`, map `i` last used `count - i` hours ago.
    private func maps(_ count: Int, in folder: String) throws -> [String] {
        let now = Date()
        return try (0..<count).map { index in
            let path = folder + "/font-\(index).json"
            try Data("{}".utf8).write(to: URL(fileURLWithPath: path))
            try FileManager.default.setAttributes([.modificationDate: now.addingTimeInterval(Double(index - count) * 3600)],
                                                  ofItemAtPath: path)
            return path
        }
    }

    @Test("past the limit the least recently used maps go, down to nine tenths of it; a map just read stays; other files stay")
    func leastRecentlyUsedGo() throws {
        let scratch = try ScratchDirectory("font-cache")
        let paths = try maps(30, in: scratch.path)
        try Data().write(to: URL(fileURLWithPath: scratch.path + "/notes.txt"))
        FontCachePruning.touch(paths[0])
        #expect(FontCachePruning.pruneDecoded(in: scratch.path, limit: 20) == 12)
        let left = Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path))
        #expect(left.count == 19)
        #expect(left.contains("notes.txt") && left.contains("font-0.json"))
        #expect(!left.contains("font-1.json") && !left.contains("font-12.json") && left.contains("font-13.json"))
        #expect(FontCachePruning.pruneDecoded(in: scratch.path, limit: 20) == 0)
    }

    @Test("a new reference index removes those of other formats")
    func otherIndexesGo() throws {
        let scratch = try ScratchDirectory("font-cache")
        for name in ["references-v3.bin", "references-v4.bin", "decoded"] {
            #expect(FileManager.default.createFile(atPath: scratch.path + "/" + name, contents: Data()))
        }
        FontCachePruning.removeOtherIndexes(in: scratch.path, current: "references-v4.bin")
        #expect(Set(try FileManager.default.contentsOfDirectory(atPath: scratch.path)) == ["references-v4.bin", "decoded"])
    }
}

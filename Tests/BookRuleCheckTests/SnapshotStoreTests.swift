import Foundation
import Testing
import BookRuleCheck
import TestSupport

/// A snapshot of one search keyword.
private func snapshot(keyword: String) -> Snapshot {
    var snapshot = Snapshot()
    snapshot.keyword = keyword
    return snapshot
}

@Suite("expected.json snapshots: written by JSONWriter, compared as JSON")
struct SnapshotStoreTests {
    @Test("a snapshot is written in JSONWriter's layout, \": \" after keys and U+FEFF escaped")
    func snapshotIsWrittenByTheOneWriter() throws {
        let text = String(decoding: try SnapshotStore.encode(snapshot(keyword: "\u{FEFF}书")), as: UTF8.self)
        #expect(text == "{\n  \"keyword\": \"\\ufeff书\"\n}\n")
    }

    @Test("a snapshot stored in Foundation's \" : \" layout still matches, and a change shows only its own lines")
    func snapshotInAnotherLayoutIsComparedAsJSON() throws {
        let scratch = try ScratchDirectory("snapshot")
        let path = scratch.path + "/expected.json"
        try Data("{\n  \"keyword\" : \"书\"\n}\n".utf8).write(to: URL(fileURLWithPath: path))
        #expect(try SnapshotStore.compare(snapshot(keyword: "书"), withFileAt: path)?.matches == true)
        let changed = try #require(try SnapshotStore.compare(snapshot(keyword: "画"), withFileAt: path))
        #expect(!changed.matches)
        #expect(changed.diff.contains("-  \"keyword\": \"书\""))
        #expect(changed.diff.contains("+  \"keyword\": \"画\""))
    }
}

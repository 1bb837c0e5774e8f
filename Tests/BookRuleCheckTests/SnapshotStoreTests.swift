import Foundation
import Testing
import BookRuleCheck
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

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

    @Test("a FIFO named expected.json is refused at once with its path, instead of blocking the run")
    func fifoSnapshotIsRefusedWithoutBlocking() throws {
        let scratch = try ScratchDirectory("snapshot")
        let path = scratch.path + "/expected.json"
        #expect(mkfifo(path, 0o600) == 0)
        let watchdog = FIFOWatchdog(path)
        defer { watchdog.disarm() }
        let error = #expect(throws: (any Error).self) { try SnapshotStore.compare(snapshot(keyword: "书"), withFileAt: path) }
        let message = error.map { "\($0)" } ?? ""
        #expect(message.contains("expected.json"), "\(message)")
        #expect(message.contains("FIFO"), "\(message)")
    }

    @Test("an expected.json linking out of the fixture is neither read into the diff nor written through")
    func snapshotLinkingOutIsRefusedAndNeverShown() throws {
        let scratch = try ScratchDirectory("snapshot")
        let fixture = scratch.path + "/fixture"
        try FileManager.default.createDirectory(atPath: fixture, withIntermediateDirectories: true)
        let secret = scratch.path + "/id_rsa"
        try Data("{\"keyword\": \"SECRET-KEY-LINE\"}\n".utf8).write(to: URL(fileURLWithPath: secret))
        let path = fixture + "/expected.json"
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: secret)

        let read = #expect(throws: (any Error).self) { try SnapshotStore.compare(snapshot(keyword: "书"), withFileAt: path) }
        let message = read.map { "\($0)" } ?? ""
        #expect(message.contains("outside the fixture directory"), "\(message)")
        #expect(!message.contains("SECRET-KEY-LINE"))

        let written = #expect(throws: (any Error).self) { try SnapshotStore.write(snapshot(keyword: "书"), to: path) }
        #expect(written.map { "\($0)" }?.contains("outside the fixture directory") == true)
        #expect(try String(contentsOfFile: secret, encoding: .utf8).contains("SECRET-KEY-LINE"))
    }

    @Test("an expected.json linking to a file inside the fixture is read and written through the link")
    func snapshotLinkingInsideIsFollowed() throws {
        let scratch = try ScratchDirectory("snapshot")
        let real = scratch.path + "/kept.json"
        let path = scratch.path + "/expected.json"
        try Data("{}\n".utf8).write(to: URL(fileURLWithPath: real))
        try FileManager.default.createSymbolicLink(atPath: path, withDestinationPath: "kept.json")
        try SnapshotStore.write(snapshot(keyword: "书"), to: path)
        #expect(try String(contentsOfFile: real, encoding: .utf8).contains("书"))
        #expect(try SnapshotStore.compare(snapshot(keyword: "书"), withFileAt: path)?.matches == true)
    }
}

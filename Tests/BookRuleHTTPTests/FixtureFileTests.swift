import BookRuleJSON
import Foundation
import Testing
@testable import BookRuleHTTP
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A fixture directory `fixture/` beside a directory `outside/` holding a secret, in one scratch directory.
private struct HostileFixture {
    let scratch: ScratchDirectory
    var fixture: String { scratch.path + "/fixture" }
    var secret: String { scratch.path + "/outside/secret.txt" }

    init() throws {
        scratch = try ScratchDirectory("fixture")
        try FileManager.default.createDirectory(atPath: scratch.path + "/fixture", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: scratch.path + "/outside", withIntermediateDirectories: true)
        try "SECRET-7f3a".write(toFile: scratch.path + "/outside/secret.txt", atomically: true, encoding: .utf8)
        try "<p>ok</p>".write(toFile: scratch.path + "/fixture/book.html", atomically: true, encoding: .utf8)
    }

    func index(_ json: String) throws {
        try json.write(toFile: fixture + "/pages.json", atomically: true, encoding: .utf8)
    }

    /// The error loading the fixture gives; records an issue (and returns "") when it loads.
    func loadError() -> String {
        do {
            let pages = try SavedPageDirectory.load(fixture)
            Issue.record("expected a refusal, got \(pages.map { String(decoding: $0.body, as: UTF8.self) })")
            return ""
        } catch {
            return error.description
        }
    }
}

@Suite("Fixture files: only regular files inside the fixture directory are read")
struct FixtureFileTests {
    @Test("pages.json naming a file outside its directory (absolute, .., a symlink out) is refused, naming the path")
    func indexNamingAFileOutsideIsRefused() throws {
        let hostile = try HostileFixture()
        try FileManager.default.createSymbolicLink(atPath: hostile.fixture + "/link.html", withDestinationPath: hostile.secret)
        try FileManager.default.createDirectory(atPath: hostile.fixture + "/sub", withIntermediateDirectories: true)
        for (name, expected) in [
            ("/etc/passwd", "/etc/passwd: refused: an absolute path"),
            (hostile.secret, "secret.txt: refused: an absolute path"),
            ("../outside/secret.txt", "../outside/secret.txt: refused: it leads to "),
            ("sub/../../outside/secret.txt", "sub/../../outside/secret.txt: refused: it leads to "),
            ("link.html", "link.html: refused: it leads to "),
        ] {
            try hostile.index(#"{"https://x.test/book/1/": "book.html", "https://x.test/book/2/": {"file": "\#(name)"}}"#)
            let error = hostile.loadError()
            #expect(error.contains(expected), "\(error)")
            #expect(error.contains("pages.json: line 1: https://x.test/book/2/: "), "\(error)")
            #expect(!error.contains("SECRET"))
        }
        let outside = hostile.loadError()
        #expect(outside.contains("/outside/secret.txt, outside the fixture directory "), "\(outside)")
    }

    @Test("a pages.json that is itself a symlink out of the directory is refused; a directory reached through a symlink, or a file through one inside it, loads")
    func indexItselfIsConfined() throws {
        let hostile = try HostileFixture()
        try FileManager.default.createSymbolicLink(atPath: hostile.fixture + "/pages.json", withDestinationPath: hostile.secret)
        #expect(hostile.loadError().contains("pages.json: refused: it leads to "))

        try FileManager.default.removeItem(atPath: hostile.fixture + "/pages.json")
        try FileManager.default.createSymbolicLink(atPath: hostile.fixture + "/alias.html", withDestinationPath: "book.html")
        try hostile.index(#"{"https://x.test/a": "alias.html", "https://x.test/b": "./sub/../book.html"}"#)
        try FileManager.default.createDirectory(atPath: hostile.fixture + "/sub", withIntermediateDirectories: true)
        let linkedDirectory = hostile.scratch.path + "/linked"
        try FileManager.default.createSymbolicLink(atPath: linkedDirectory, withDestinationPath: hostile.fixture)
        let pages = try SavedPageDirectory.load(linkedDirectory)
        #expect(pages.map { String(decoding: $0.body, as: UTF8.self) } == ["<p>ok</p>", "<p>ok</p>"])
    }

    @Test("a FIFO named in pages.json is refused at once instead of blocking the load forever")
    func fifoInIndexIsRefusedWithoutBlocking() throws {
        let hostile = try HostileFixture()
        let fifo = hostile.fixture + "/page.html"
        #expect(mkfifo(fifo, 0o600) == 0)
        let watchdog = FIFOWatchdog(fifo)
        defer { watchdog.disarm() }
        try hostile.index(#"{"https://x.test/book/1/": "page.html"}"#)
        let error = hostile.loadError()
        #expect(error.contains("page.html: cannot read the saved page: it is a FIFO (named pipe), not a regular file"), "\(error)")
        #expect(error.contains("pages.json line 1 lists it for https://x.test/book/1/"), "\(error)")
    }

    @Test("a FIFO as pages.json or as a HAR is refused at once")
    func fifoAsIndexOrHARIsRefused() throws {
        let hostile = try HostileFixture()
        var watchdogs: [FIFOWatchdog] = []
        defer { watchdogs.forEach { $0.disarm() } }
        for name in ["pages.json", "site.har"] {
            #expect(mkfifo(hostile.fixture + "/" + name, 0o600) == 0)
            watchdogs.append(FIFOWatchdog(hostile.fixture + "/" + name))
        }
        #expect(hostile.loadError().contains("it is a FIFO (named pipe), not a regular file"))
        #expect(throws: HARError.cannotRead(path: hostile.fixture + "/site.har", reason: "it is a FIFO (named pipe), not a regular file")) {
            try HARRecording.load(contentsOf: hostile.fixture + "/site.har")
        }
    }

    @Test("a directory, a device and a file over the 32 MiB limit are refused before they are read")
    func directoryDeviceAndHugeFileAreRefused() throws {
        let hostile = try HostileFixture()
        try FileManager.default.createDirectory(atPath: hostile.fixture + "/folder", withIntermediateDirectories: true)
        try hostile.index(#"{"https://x.test/book/1/": "folder"}"#)
        #expect(hostile.loadError().contains("folder: cannot read the saved page: it is a directory, not a regular file"))

        // Sparse: 32 MiB and one byte of size, no blocks written.
        let huge = hostile.fixture + "/huge.html"
        #expect(FileManager.default.createFile(atPath: huge, contents: nil))
        #expect(truncate(huge, off_t(FixtureFile.sizeLimit + 1)) == 0)
        try hostile.index(#"{"https://x.test/book/1/": "huge.html"}"#)
        #expect(hostile.loadError().contains("huge.html: cannot read the saved page: larger than 32 MiB"))
        #expect(FixtureFile.sizeLimit == CurlTransport.Configuration().maxBodyBytes)

        #expect(throws: LocalFile.Failure.self) { try LocalFile.readRegularFile("/dev/zero", limit: 1 << 20) }
        do {
            _ = try LocalFile.readRegularFile("/dev/zero", limit: 1 << 20)
        } catch {
            #expect(error.reason == "it is a character device, not a regular file")
        }
    }
}

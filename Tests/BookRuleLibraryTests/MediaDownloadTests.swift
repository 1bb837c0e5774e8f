import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleHTTP
@testable import BookRuleJSON
@testable import BookRuleLibrary
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// A polite fetcher over libcurl with no gaps, for loopback servers.
func fastFetcher() -> PoliteFetcher {
    PoliteFetcher(
        transport: CurlTransport(),
        policy: PolitenessPolicy(delay: .zero, failureDelay: .zero, jitter: false))
}

/// Collects a downloader's events in the background.
final class DownloadEventLog: Sendable {
    private final class Store: Sendable {
        let events = Locked<[MediaDownloadEvent]>([])
    }

    private let store: Store
    private let listener: Task<Void, Never>

    init(_ downloader: MediaDownloader) {
        let store = Store()
        self.store = store
        listener = Task {
            for await event in downloader.events { store.events.withLock { $0.append(event) } }
        }
    }

    var all: [MediaDownloadEvent] { store.events.withLock { $0 } }

    /// Whether an event `matches` arrives: the listener reads the stream on Swift's shared pool, so an event
    /// sent just before a download returned may be read a little after it (on a busy machine, much after).
    func arrives(_ matches: @escaping @Sendable (MediaDownloadEvent) -> Bool) async -> Bool {
        (try? await eventually("the download event") { self.all.contains(where: matches) }) != nil
    }

    var restartReasons: [String] {
        all.compactMap { if case .restarted(_, let reason) = $0 { reason } else { nil } }
    }

    /// The highest byte count a progress event reported for `id`.
    func received(_ id: String) -> Int64 {
        all.reduce(0) { result, event in
            if case .progress(id, let progress) = event { return max(result, progress.receivedBytes) }
            return result
        }
    }
}

/// Runs one download to the end (or pause) and returns its final state.
func download(
    _ task: MediaDownloadTask, through downloader: MediaDownloader
) async throws -> MediaDownloadState? {
    try await downloader.add(task)
    await downloader.waitUntilIdle()
    return await downloader.state(of: task.id)
}

func sha256(ofFile path: String) async throws -> String {
    try await RangeServer.sha256(ofFile: path)
}

/// The tests that move real data over loopback and to disk run one at a time: the machine has two cores shared
/// with other work, and running them side by side starved unrelated tests' loopback servers past their timeouts.
/// The media downloader's group; the CLI's (`bookrule download`, `bookrule fetch` of media sources: bookruleTests) are a group of their own.
@Suite("Downloads that move data (one test at a time)", .serialized)
enum DownloadTransfers {}

@Suite("Media downloads: SHA-256, Content-Range and If-Range rules")
struct MediaDownloadRuleTests {
    @Test("SHA-256 matches the FIPS 180-4 vectors, fed whole or in uneven pieces")
    func sha256Vectors() {
        let vectors: [(String, String)] = [
            ("", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"),
            ("abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
            ("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
             "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"),
            ("abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrstnopqrstu",
             "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"),
        ]
        for (text, digest) in vectors {
            #expect(SHA256.hexDigest(of: Array(text.utf8)) == digest, "\"\(text)\"")
        }
        var million = SHA256()
        let block = [UInt8](repeating: UInt8(ascii: "a"), count: 1000)
        for _ in 0..<1000 { million.update(block) }
        #expect(million.hexDigest() == "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0")

        let bytes = (0..<1000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        var pieces = SHA256()
        var index = 0
        for size in [1, 63, 64, 65, 0, 127, 200, 480] {
            pieces.update(Array(bytes[index..<(index + size)]))
            index += size
        }
        #expect(index == bytes.count)
        #expect(pieces.hexDigest() == SHA256.hexDigest(of: bytes))
    }

    @Test("Content-Range: the three valid forms are read")
    func contentRangeValid() throws {
        #expect(try ContentRange.parse("bytes 0-499/1234") == ContentRange(range: 0...499, completeLength: 1234))
        #expect(try ContentRange.parse("bytes 500-999/*") == ContentRange(range: 500...999, completeLength: nil))
        #expect(try ContentRange.parse("bytes */1234") == ContentRange(range: nil, completeLength: 1234))
        #expect(try ContentRange.parse("  Bytes 7-7/8 ") == ContentRange(range: 7...7, completeLength: 8))
    }

    @Test("Content-Range: malformed values are errors, not crashes", arguments: [
        "", "bytes", "bytes ", "bytes 5-3/10", "bytes 0-10/10", "bytes a-b/c", "items 0-1/2", "bytes */*",
        "bytes -1-5/10", "bytes 0-5", "bytes 0-5/10/12", "bytes 0-99999999999999999999/1", "bytes 1-2-3/4",
        "bytes 0-/10", "bytes +1-2/4", "bytes ０-1/4",
    ])
    func contentRangeMalformed(value: String) {
        #expect(throws: ContentRange.ParseError.self) { try ContentRange.parse(value) }
    }

    @Test("If-Range: a strong ETag is used, a weak one never; Last-Modified only when 60 s older than Date")
    func ifRangeRules() {
        let date = "Mon, 30 Nov 2026 08:00:00 GMT"
        let minuteBefore = "Mon, 30 Nov 2026 07:59:00 GMT"
        let secondsBefore = "Mon, 30 Nov 2026 07:59:01 GMT"
        #expect(ResumeValidator.ifRange(etag: "\"abc\"", lastModified: minuteBefore, responseDate: date) == "\"abc\"")
        #expect(ResumeValidator.ifRange(etag: "W/\"abc\"", lastModified: nil, responseDate: date) == nil)
        #expect(ResumeValidator.ifRange(etag: "W/\"abc\"", lastModified: minuteBefore, responseDate: date) == minuteBefore)
        #expect(ResumeValidator.ifRange(etag: nil, lastModified: secondsBefore, responseDate: date) == nil)
        #expect(ResumeValidator.ifRange(etag: nil, lastModified: minuteBefore, responseDate: nil) == nil)
        #expect(ResumeValidator.ifRange(etag: nil, lastModified: "yesterday", responseDate: date) == nil)
        #expect(ResumeValidator.ifRange(etag: "abc", lastModified: nil, responseDate: nil) == nil)
    }
}

extension DownloadTransfers {
    @Suite("Media downloads against a loopback range server", .timeLimit(.minutes(2 * TestTime.scale)))
    struct MediaDownloaderTests {
        static let mebibyte = 1 << 20

        @Test("a dropped connection mid-file: the 20 MiB download resumes with Range and its SHA-256 matches")
        func droppedConnectionResumes() async throws {
            let length = 20 * Self.mebibyte
            let server = try RangeServer(.init(length: length, dropAfterBytes: 7 * Self.mebibyte))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let downloader = MediaDownloader(transport: fastFetcher())
            let log = DownloadEventLog(downloader)
            let task = MediaDownloadTask(id: "big", url: server.baseURL + "/files/big.bin", destination: directory + "/big.bin")
            let state = try await download(task, through: downloader)
            #expect(state == .completed, "\(log.all.suffix(3))")
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            let records = server.records
            #expect(records.count == 2)
            #expect(records.first?.header("Range") == nil)
            let resumedAt = records.last?.firstByte ?? 0
            #expect(records.last?.status == 206 && resumedAt > 6 * Self.mebibyte, "resumed at \(resumedAt)")
            #expect(records.last?.header("If-Range") == "\"v1-\(length)\"")
            #expect(records.last?.header("Accept-Encoding") == "identity")
            #expect(server.totalBodyBytesSent - length < Self.mebibyte, "re-sent \(server.totalBodyBytesSent - length) bytes")
            #expect(!FileManager.default.fileExists(atPath: task.partPath))
            #expect(!FileManager.default.fileExists(atPath: task.sidecarPath))
        }

        @Test("pause keeps the partial data and its sidecar; resume continues it to the right file")
        func pauseAndResume() async throws {
            let length = 6 * Self.mebibyte
            // The server holds the answer after 1.5 MiB, so the pause lands mid-transfer however slow the machine.
            let server = try RangeServer(.init(length: length, stallAfterBytes: 1_500_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let downloader = MediaDownloader(transport: fastFetcher())
            let log = DownloadEventLog(downloader)
            let task = MediaDownloadTask(id: "f", url: server.baseURL + "/f.bin", destination: directory + "/f.bin")
            try await downloader.add(task)
            try await eventually(seconds: 60) { server.isStalled }
            // The server has sent its 1.5 MiB; wait until the client has written them too (on a loaded machine
            // they can still be in the socket when the server stalls).
            try await eventually(seconds: 60) { LocalFile.size(task.partPath) == 1_500_000 }
            await downloader.pause("f")
            await downloader.waitUntilIdle()
            #expect(await downloader.state(of: "f") == .paused, "\(log.all)")
            let record = try PartialDownloadRecord.decode(try LocalFile.read(task.sidecarPath))
            #expect(record.committedBytes == 1_500_000)  // pausing commits everything that arrived
            #expect(LocalFile.size(task.partPath) == record.committedBytes)
            #expect(!FileManager.default.fileExists(atPath: task.destination))

            await downloader.resume("f")
            await downloader.waitUntilIdle()
            #expect(await downloader.state(of: "f") == .completed)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            #expect(server.records.count == 2)
            #expect(server.records.last?.header("Range") == "bytes=\(record.committedBytes)-")
            #expect(await log.arrives { if case .paused("f", _) = $0 { true } else { false } })
        }

        @Test("a completed file is recognised and not fetched again (the server sees no request)")
        func completedNotRefetched() async throws {
            let length = 300_000
            let server = try RangeServer(.init(length: length))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let path = directory + "/done.bin"
            try Data(RangeServer.content(version: 1, from: 0, to: length)).write(to: URL(fileURLWithPath: path))
            let downloader = MediaDownloader(transport: fastFetcher())
            let log = DownloadEventLog(downloader)
            let task = MediaDownloadTask(id: "done", url: server.baseURL + "/done.bin", destination: path,
                                         expectedSHA256: await RangeServer.expectedSHA256(length: length, version: 1),
                                         expectedLength: Int64(length))
            #expect(try await download(task, through: downloader) == .completed)
            #expect(server.records.isEmpty)
            let completed = MediaDownloadEvent.completed(id: "done", path: path, bytes: Int64(length), alreadyPresent: true)
            #expect(await log.arrives { $0 == completed })
        }

        @Test("a file that changed on the server (new ETag, same length) restarts: the new file, never a splice")
        func changedFileRestarts() async throws {
            let length = 4 * Self.mebibyte
            let server = try RangeServer(.init(length: length, dropAfterBytes: 1_500_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "c", url: server.baseURL + "/c.bin", destination: directory + "/c.bin")
            // First run: one attempt only, so the drop leaves partial data of version 1.
            let first = MediaDownloader(transport: fastFetcher(), options: .init(maxAttempts: 1))
            guard case .failed? = try await download(task, through: first) else { throw TestFailure("the first run should fail") }
            #expect((LocalFile.size(task.partPath) ?? 0) > 0)

            server.update { $0.version = 2 }
            let second = MediaDownloader(transport: fastFetcher())
            let log = DownloadEventLog(second)
            #expect(try await download(task, through: second) == .completed)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 2))
            let last = try #require(server.records.last)
            #expect(last.header("If-Range") == "\"v1-\(length)\"")
            #expect(last.status == 200)
            try await eventually { !log.restartReasons.isEmpty }
            // The reason names the change, and leaves "from byte 0" to whoever reports the restart.
            #expect(log.restartReasons == ["the file changed on the server (ETag \"v1-\(length)\" → \"v2-\(length)\")"])
        }

        @Test("a server that ignores Range (always 200): the file is rewritten from byte 0, not appended")
        func ignoredRangeRewrites() async throws {
            let length = 3 * Self.mebibyte
            let server = try RangeServer(.init(length: length, ignoreRange: true, dropAfterBytes: 1_000_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "i", url: server.baseURL + "/i.bin", destination: directory + "/i.bin")
            let downloader = MediaDownloader(transport: fastFetcher())
            #expect(try await download(task, through: downloader) == .completed)
            #expect(LocalFile.size(task.destination) == Int64(length))
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            #expect(server.records.count == 2)
            #expect(server.records.last?.header("Range") != nil)
            #expect(server.records.last?.status == 200)
        }

        @Test("Accept-Ranges: none: a retry sends no Range and starts from byte 0")
        func acceptRangesNone() async throws {
            let length = 2 * Self.mebibyte
            let server = try RangeServer(.init(length: length, acceptRangesNone: true, dropAfterBytes: 1_000_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "n", url: server.baseURL + "/n.bin", destination: directory + "/n.bin")
            let downloader = MediaDownloader(transport: fastFetcher())
            #expect(try await download(task, through: downloader) == .completed)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            #expect(server.records.count == 2)
            #expect(server.records.allSatisfy { $0.header("Range") == nil })
        }

        @Test("a weak ETag is never sent in If-Range: the partial data restarts from zero")
        func weakETagRestarts() async throws {
            let length = 2 * Self.mebibyte
            let server = try RangeServer(.init(length: length, etag: .weak, dropAfterBytes: 1_000_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "w", url: server.baseURL + "/w.bin", destination: directory + "/w.bin")
            let downloader = MediaDownloader(transport: fastFetcher())
            #expect(try await download(task, through: downloader) == .completed)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            #expect(server.records.allSatisfy { $0.header("If-Range") == nil && $0.header("Range") == nil })
        }

        @Test("no ETag: a Last-Modified a day old resumes with If-Range: <date>; one from this minute restarts from 0")
        func lastModifiedValidator() async throws {
            let length = 2 * Self.mebibyte
            let servers = (
                try RangeServer(.init(length: length, etag: .none, lastModified: FaultServer.imfFixdate(secondsFromNow: -86_400),
                                      dropAfterBytes: 1_000_000)),
                try RangeServer(.init(length: length, etag: .none, lastModified: FaultServer.imfFixdate(secondsFromNow: -5),
                                      dropAfterBytes: 1_000_000)))
            defer {
                servers.0.stop()
                servers.1.stop()
            }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let downloader = MediaDownloader(transport: fastFetcher())
            for (name, server) in [("old", servers.0), ("fresh", servers.1)] {
                let task = MediaDownloadTask(id: name, url: server.baseURL + "/\(name).bin", destination: directory + "/\(name).bin")
                #expect(try await download(task, through: downloader) == .completed)
                #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            }
            let resumed = try #require(servers.0.records.last)
            #expect(servers.0.records.count == 2)
            #expect(resumed.status == 206 && resumed.header("If-Range") == servers.0.records[0].lastModifiedSent)
            #expect(servers.1.records.count == 2)
            #expect(servers.1.records.allSatisfy { $0.header("Range") == nil && $0.header("If-Range") == nil })
        }

        @Test("a server that answers ranges in short pieces: each piece is asked for in turn, none counts as a failure")
        func shortRangesContinue() async throws {
            let length = 1_000_000
            let server = try RangeServer(.init(length: length, dropAfterBytes: 100_000, maxRangeBytes: 150_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "s", url: server.baseURL + "/s.bin", destination: directory + "/s.bin")
            // Two attempts in a row at most: six short pieces must not add up to a failure.
            let downloader = MediaDownloader(transport: fastFetcher(), options: .init(maxAttempts: 2))
            #expect(try await download(task, through: downloader) == .completed)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            let starts = server.records.map(\.firstByte)
            #expect(starts == [0, 100_000, 250_000, 400_000, 550_000, 700_000, 850_000])
        }

        @Test("data that cannot be continued (no validator) is no progress: a server that always drops fails after maxAttempts")
        func unresumableDropsAreBounded() async throws {
            let server = try RangeServer(.init(length: 1_000_000, etag: .none, dropEveryResponseAfterBytes: 200_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "u", url: server.baseURL + "/u.bin", destination: directory + "/u.bin")
            let downloader = MediaDownloader(transport: fastFetcher(), options: .init(maxAttempts: 3))
            guard case .failed(let reason)? = try await download(task, through: downloader) else {
                throw TestFailure("a file that can never finish should fail")
            }
            #expect(reason.contains("after 3 attempt(s)"), "\(reason)")
            #expect(server.records.count == 3)
        }

        @Test("a server that sends past the range it announced: the range is kept, the rest asked for")
        func sendPastAnnouncedRange() async throws {
            let length = 600_000
            let server = try RangeServer(.init(length: length, dropAfterBytes: 100_000, maxRangeBytes: 200_000,
                                               sendPastAnnouncedRange: true))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "o", url: server.baseURL + "/o.bin", destination: directory + "/o.bin")
            let downloader = MediaDownloader(transport: fastFetcher(), options: .init(maxAttempts: 2))
            #expect(try await download(task, through: downloader) == .completed)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            #expect(server.records.map(\.firstByte) == [0, 100_000, 300_000, 500_000])
        }

        @Test("validated by date, a server that ignores If-Range sends a newer file: restart, never a splice")
        func changedLastModifiedRestarts() async throws {
            let length = 2 * Self.mebibyte
            let old = FaultServer.imfFixdate(secondsFromNow: -86_400)
            let server = try RangeServer(.init(length: length, etag: .none, lastModified: old, dropAfterBytes: 1_000_000,
                                               ignoreIfRange: true))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "d", url: server.baseURL + "/d.bin", destination: directory + "/d.bin")
            let first = MediaDownloader(transport: fastFetcher(), options: .init(maxAttempts: 1))
            guard case .failed? = try await download(task, through: first) else { throw TestFailure("the first run should fail") }
            server.update {
                $0.version = 2
                $0.lastModified = FaultServer.imfFixdate(secondsFromNow: -3_600)
            }
            let second = MediaDownloader(transport: fastFetcher())
            let log = DownloadEventLog(second)
            #expect(try await download(task, through: second) == .completed)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 2))
            try await eventually { !log.restartReasons.isEmpty }
            #expect(log.restartReasons.contains { $0.contains("Last-Modified") })
        }

        @Test("a content-coded answer is stored as served (not decoded) and, once cut, restarts instead of resuming")
        func contentCodedStoredAsServed() async throws {
            let length = 1_500_000
            let server = try RangeServer(.init(length: length, dropAfterBytes: 700_000, contentEncoding: "gzip"))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "g", url: server.baseURL + "/g.tar.gz", destination: directory + "/g.tar.gz")
            let downloader = MediaDownloader(transport: fastFetcher())
            #expect(try await download(task, through: downloader) == .completed)
            // The generated bytes are not gzip: decoding them would have failed or changed them.
            #expect(LocalFile.size(task.destination) == Int64(length))
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            #expect(server.records.count == 2)
            #expect(server.records.allSatisfy { $0.header("Range") == nil })
            #expect(server.records.allSatisfy { $0.header("Accept-Encoding") == "identity" })
        }

        @Test("416 with */L equal to the local length and the same ETag: complete without a body")
        func rangeNotSatisfiableCompletes() async throws {
            let length = 100_000
            let server = try RangeServer(.init(length: length))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "r", url: server.baseURL + "/r.bin", destination: directory + "/r.bin")
            // As if killed after the last commit and before the rename.
            try Data(RangeServer.content(version: 1, from: 0, to: length)).write(to: URL(fileURLWithPath: task.partPath))
            let record = PartialDownloadRecord(
                url: task.url, etag: "\"v1-\(length)\"", lastModified: nil, responseDate: nil, totalBytes: Int64(length),
                committedBytes: Int64(length), acceptsRanges: true)
            try LocalFile.writeAtomically(try record.encoded(), to: task.sidecarPath)
            let downloader = MediaDownloader(transport: fastFetcher())
            #expect(try await download(task, through: downloader) == .completed)
            #expect(server.records.map(\.status) == [416])
            #expect(server.totalBodyBytesSent == 0)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
        }

        @Test("a corrupt sidecar: a clear restart event, the file downloaded from zero, no crash")
        func corruptSidecarRestarts() async throws {
            let length = 200_000
            let server = try RangeServer(.init(length: length))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "s", url: server.baseURL + "/s.bin", destination: directory + "/s.bin")
            try Data(repeating: 0x55, count: 50_000).write(to: URL(fileURLWithPath: task.partPath))
            try Data("{\"version\": 1, \"url\": [".utf8).write(to: URL(fileURLWithPath: task.sidecarPath))
            let downloader = MediaDownloader(transport: fastFetcher())
            let log = DownloadEventLog(downloader)
            #expect(try await download(task, through: downloader) == .completed)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
            #expect(server.records.count == 1 && server.records.first?.header("Range") == nil)
            try await eventually { !log.restartReasons.isEmpty }
            #expect(log.restartReasons.first?.contains("sidecar") == true)
            #expect(log.restartReasons.allSatisfy { !$0.contains("byte 0") })
        }

        @Test("a file over the task's maximumBytes fails saying so and keeps nothing")
        func maximumBytes() async throws {
            let server = try RangeServer(.init(length: 300_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "m", url: server.baseURL + "/m.jpg", destination: directory + "/m.jpg",
                                         maximumBytes: 100_000)
            guard case .failed(let reason)? = try await download(task, through: MediaDownloader(transport: fastFetcher())) else {
                throw TestFailure("a file over its limit should fail")
            }
            #expect(reason.contains("larger than 100000 bytes"))
            #expect(!FileManager.default.fileExists(atPath: task.destination))
            #expect(!FileManager.default.fileExists(atPath: task.partPath))
            #expect(server.records.count == 1)
        }

        @Test("resume right after pause (while the transfer is still stopping) runs the task again")
        func resumeWhilePausing() async throws {
            let length = 3 * Self.mebibyte
            let server = try RangeServer(.init(length: length, stallAfterBytes: 1_000_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let downloader = MediaDownloader(transport: fastFetcher())
            let task = MediaDownloadTask(id: "p", url: server.baseURL + "/p.bin", destination: directory + "/p.bin")
            try await downloader.add(task)
            try await eventually(seconds: 60) { server.isStalled }
            await downloader.pause("p")
            await downloader.resume("p")
            await downloader.waitUntilIdle()
            #expect(await downloader.state(of: "p") == .completed)
            #expect(try await sha256(ofFile: task.destination) == RangeServer.expectedSHA256(length: length, version: 1))
        }

        @Test("pause, resume, pause while the transfer is still stopping: the last word (pause) wins")
        func pauseResumePause() async throws {
            let server = try RangeServer(.init(length: 3 * Self.mebibyte, stallAfterBytes: 1_000_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let downloader = MediaDownloader(transport: fastFetcher())
            let task = MediaDownloadTask(id: "q", url: server.baseURL + "/q.bin", destination: directory + "/q.bin")
            try await downloader.add(task)
            try await eventually(seconds: 60) { server.isStalled }
            await downloader.pause("q")
            await downloader.resume("q")
            await downloader.pause("q")
            await downloader.waitUntilIdle()
            #expect(await downloader.state(of: "q") == .paused)
        }

        @Test("a .part file another process holds (locked) is not written to: the task fails saying so")
        func lockedPartFile() async throws {
            let server = try RangeServer(.init(length: 10_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "l", url: server.baseURL + "/l.bin", destination: directory + "/l.bin")
            let holder = open(task.partPath, O_RDWR | O_CREAT, 0o644)
            #expect(holder >= 0 && flock(holder, LOCK_EX) == 0)
            defer { close(holder) }
            // The other run's data, with a sidecar this run would discard (no validator) if it decided first.
            #expect(write(holder, "0123456789", 10) == 10)
            try LocalFile.writeAtomically(Array("not a sidecar".utf8), to: task.sidecarPath)
            let downloader = MediaDownloader(transport: fastFetcher())
            guard case .failed(let reason)? = try await download(task, through: downloader) else {
                throw TestFailure("a locked .part file should fail the task")
            }
            #expect(reason.contains("being downloaded by another bookrule"))
            #expect(server.records.isEmpty)
            #expect(LocalFile.size(task.partPath) == 10)
            #expect(FileManager.default.fileExists(atPath: task.sidecarPath))
        }

        @Test("a wrong checksum fails the task and leaves no file under the final name")
        func checksumMismatch() async throws {
            let server = try RangeServer(.init(length: 10_000))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let task = MediaDownloadTask(id: "x", url: server.baseURL + "/x.bin", destination: directory + "/x.bin",
                                         expectedSHA256: String(repeating: "0", count: 64))
            let downloader = MediaDownloader(transport: fastFetcher())
            guard case .failed(let reason)? = try await download(task, through: downloader) else {
                throw TestFailure("a checksum mismatch should fail")
            }
            #expect(reason.contains("SHA-256"))
            #expect(!FileManager.default.fileExists(atPath: task.destination))
        }

        @Test("a 404 fails at once (one request), leaves no .part behind; a 503 is retried")
        func errorStatuses() async throws {
            let server = try FaultServer { request, index in
                request.path == "/gone" ? .status(404) : (index == 0 ? .status(503, retryAfter: "1") : .ok("fine"))
            }
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let downloader = MediaDownloader(transport: fastFetcher())
            let gone = MediaDownloadTask(id: "gone", url: server.baseURL + "/gone", destination: directory + "/gone")
            guard case .failed(let reason)? = try await download(gone, through: downloader) else {
                throw TestFailure("a 404 should fail")
            }
            #expect(reason.contains("404"))
            #expect(server.requests(matching: "/gone").count == 1)
            #expect(!FileManager.default.fileExists(atPath: gone.partPath))
            #expect(!FileManager.default.fileExists(atPath: gone.sidecarPath))
            let flaky = MediaDownloadTask(id: "flaky", url: server.baseURL + "/flaky", destination: directory + "/flaky")
            #expect(try await download(flaky, through: downloader) == .completed)
            let flakyRecords = server.requests(matching: "/flaky")
        #expect(flakyRecords.count == 2)
        // The polite fetcher kept the host paused for the Retry-After second before the retry went out.
        if flakyRecords.count == 2, let firstEnd = flakyRecords[0].finishedAt {
            #expect(flakyRecords[1].arrivedAt - firstEnd >= 0.9)
        }
            #expect(try String(contentsOfFile: flaky.destination, encoding: .utf8) == "fine")
        }

        @Test("four downloads from two hosts: one in flight per host, both hosts busy at once")
        func twoHostsInParallel() async throws {
            let length = 2 * Self.mebibyte
            let first = try RangeServer(.init(length: length, bytesPerSecond: 8 * Self.mebibyte))
            let second = try RangeServer(.init(length: length, bytesPerSecond: 8 * Self.mebibyte))
            // Each answer waits (up to 20 s) until the other host has a request too: parallel clients pass at once,
            // a client that serialised the hosts would show no overlap.
            first.update { $0.gate = { second.inFlight > 0 } }
            second.update { $0.gate = { first.inFlight > 0 } }
            defer {
                first.stop()
                second.stop()
            }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let downloader = MediaDownloader(transport: fastFetcher(), jobs: 4)
            for (index, server) in [first, first, second, second].enumerated() {
                try await downloader.add(MediaDownloadTask(
                    id: "t\(index)", url: server.baseURL + "/file\(index).bin", destination: directory + "/file\(index).bin"))
            }
            await downloader.waitUntilIdle()
            for index in 0..<4 { #expect(await downloader.state(of: "t\(index)") == .completed) }
            #expect(first.maxInFlight == 1)
            #expect(second.maxInFlight == 1)
            #expect(first.records.count == 2 && second.records.count == 2)
            let overlapping = first.records.contains { a in
                second.records.contains { b in
                    guard let aEnd = a.finish, let bEnd = b.finish else { return false }
                    return a.arrival < bEnd && b.arrival < aEnd
                }
            }
            let start = first.records[0].arrival
            let times = (first.records + second.records).map { "\($0.target) \($0.arrival - start) \(($0.finish ?? start) - start)" }
            #expect(overlapping, "the two hosts never transferred at the same time: \(times)")
        }
    }
}

extension DownloadTransfers {
    @Suite("Streaming through the transport seam", .timeLimit(.minutes(1 * TestTime.scale)))
    struct HTTPStreamingTests {
        /// Counts bytes and stops after `limit` when one is set.
        final class CountingSink: HTTPBodySink {
            let limit: Int?
            let state = Locked<(head: HTTPResponseHead?, bytes: Int, bodyBeforeHead: Bool)>((nil, 0, false))
            init(limit: Int? = nil) { self.limit = limit }
            func receiveHead(_ head: HTTPResponseHead) -> Bool {
                state.withLock { $0.head = head }
                return true
            }
            func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
                state.withLock { state in
                    if state.head == nil { state.bodyBeforeHead = true }
                    state.bytes += bytes.count
                    return limit.map { state.bytes < $0 } ?? true
                }
            }
        }

        @Test("CurlTransport streams a body far above its body cap without holding it")
        func streamsPastTheCap() async throws {
            let length = 48 << 20
            let server = try RangeServer(.init(length: length))
            defer { server.stop() }
            let transport = CurlTransport(configuration: .init(maxBodyBytes: 1 << 20))
            let sink = CountingSink()
            let result = try await transport.stream(HTTPRequest(url: server.baseURL + "/big"), to: sink)
            #expect(result.head.status == 200 && result.bodyBytes == length && !result.stoppedBySink)
            #expect(sink.state.withLock { $0.bytes } == length)
            #expect(!sink.state.withLock { $0.bodyBeforeHead })
            #expect(transport.statistics.withLock { $0.peakBodyCapacity } < 1 << 20)
        }

        @Test("a sink that stops ends the transfer cleanly: no error, stoppedBySink set")
        func sinkStops() async throws {
            let server = try RangeServer(.init(length: 8 << 20))
            defer { server.stop() }
            let sink = CountingSink(limit: 100_000)
            let result = try await fastFetcher().stream(HTTPRequest(url: server.baseURL + "/stop"), to: sink)
            #expect(result.stoppedBySink)
            #expect(result.head.status == 200)
            #expect(sink.state.withLock { $0.bytes } < 8 << 20)
        }

        @Test("PoliteFetcher.stream holds the host's turn for the whole transfer: two streams to one host never overlap")
    func streamHoldsTheTurn() async throws {
        let server = try RangeServer(.init(length: 2 << 20, bytesPerSecond: 8 << 20))
        defer { server.stop() }
        let fetcher = fastFetcher()
        async let first = fetcher.stream(HTTPRequest(url: server.baseURL + "/one"), to: CountingSink())
        async let second = fetcher.stream(HTTPRequest(url: server.baseURL + "/two"), to: CountingSink())
        let results = try await [first, second]
        #expect(results.allSatisfy { $0.bodyBytes == 2 << 20 && $0.head.status == 200 })
        #expect(server.records.count == 2)
        #expect(server.maxInFlight == 1)
    }

    @Test("a redirect's own response never reaches the sink; the final one does, with its URL")
    func streamFollowsRedirects() async throws {
        let server = try FaultServer { request, _ in
            request.path == "/start" ? .redirect(status: 302, location: "/file") : .ok("the file")
        }
        defer { server.stop() }
        let sink = CountingSink()
        let result = try await CurlTransport().stream(HTTPRequest(url: server.baseURL + "/start"), to: sink)
        #expect(result.head.status == 200)
        #expect(result.head.url == server.baseURL + "/file")
        #expect(result.bodyBytes == 8 && sink.state.withLock { $0.bytes } == 8)
        #expect(sink.state.withLock { $0.head?.status } == 200)
    }

    @Test("the default stream of an in-memory transport hands the body over in one piece")
        func defaultStream() async throws {
            struct Fixed: HTTPTransport {
                func send(_ request: HTTPRequest) async throws -> HTTPResponse {
                    HTTPResponse(url: request.url, status: 200, headers: [HTTPHeader("ETag", "\"1\"")], body: Array("hello".utf8))
                }
            }
            let sink = CountingSink()
            let result = try await Fixed().stream(HTTPRequest(url: "http://example.invalid/"), to: sink)
            #expect(result.bodyBytes == 5 && !result.stoppedBySink)
            #expect(sink.state.withLock { $0.head?.headers.value(for: "ETag") } == "\"1\"")
        }
    }
}

import Foundation
import Testing
@testable import BookRuleJSON
@testable import BookRuleLibrary
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The peak resident set (VmHWM) of process `pid` in KiB, or nil once it is gone.
func peakResidentKiB(_ pid: Int32) -> Int? {
    guard let status = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
    for line in status.split(separator: "\n") where line.hasPrefix("VmHWM:") {
        return Int(line.dropFirst(6).trimmingCharacters(in: .whitespaces).split(separator: " ").first ?? "")
    }
    return nil
}

/// The tests that move real data over loopback and to disk run one at a time: the machine has two cores shared
/// with other work, and running them side by side starved unrelated tests' loopback servers past their timeouts.
/// The CLI's own group (`bookrule download`, `bookrule fetch` of media sources); the media downloader's tests are
/// BookRuleLibraryTests' group of the same name.
@Suite("Downloads that move data (one test at a time)", .serialized)
enum DownloadTransfers {}

extension DownloadTransfers {
    @Suite("bookrule download: resumable file downloads from the command line", .serialized, .timeLimit(.minutes(3 * TestTime.scale)),
           .enabled(if: FileManager.default.isExecutableFile(atPath: BookruleProcess.executable), "build bookrule first (swift build)"))
    struct DownloadCommandTests {
        static let fast = ["--delay", "0", "--failure-delay", "0"]
        static let mebibyte = 1 << 20

        @Test("kill -9 mid-download, rerun: the 20 MiB file completes, SHA-256 matches, under 1 MiB is sent again")
        func killAndResume() async throws {
            let length = 20 * Self.mebibyte
            // The server holds the first response after 7.3 MiB, so the kill lands mid-transfer however slow the machine.
            let server = try RangeServer(.init(length: length, stallAfterBytes: 7_654_321))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let url = server.baseURL + "/media/episode%201.mp3"
            let first = try BookruleProcess(["download", url, "-o", directory] + Self.fast)
            try await eventually(seconds: 60) { server.isStalled }
            // Everything the server sent has reached the file (on a loaded machine some of it can still be in
            // the socket when the server stalls); the kill then lands with the sidecar at most one commit behind.
            try await eventually(seconds: 60) { LocalFile.size(directory + "/episode 1.mp3.part") == 7_654_321 }
            kill(first.process.processIdentifier, SIGKILL)
            let killed = try await first.wait()
            #expect(killed.status != 0)
            #expect(await server.waitUntilIdle())
            let sentBeforeKill = server.totalBodyBytesSent
            #expect(sentBeforeKill < length, "the kill landed after the transfer")
            #expect(FileManager.default.fileExists(atPath: directory + "/episode 1.mp3.part"))

            let second = try await BookruleProcess(["download", url, "-o", directory] + Self.fast).wait()
            #expect(second.status == 0, "\(second.output)")
            let path = directory + "/episode 1.mp3"
            #expect(second.output.contains(path))
            #expect(try await RangeServer.sha256(ofFile: path) == RangeServer.expectedSHA256(length: length, version: 1))
            let records = server.records
            #expect(records.count == 2)
            let resumedAt = records.last?.firstByte ?? 0
            #expect(records.last?.status == 206)
            #expect(sentBeforeKill - resumedAt < Self.mebibyte, "sent \(sentBeforeKill) before the kill, resumed at \(resumedAt)")
            #expect(server.totalBodyBytesSent - length < Self.mebibyte)
            #expect(!FileManager.default.fileExists(atPath: path + ".part"))
            #expect(!FileManager.default.fileExists(atPath: path + ".part.json"))

            // A third run finds the file complete and asks the server nothing; --json says so on stdout.
            let third = try await BookruleProcess(["download", url, "-o", directory, "--json"] + Self.fast).wait()
            #expect(third.status == 0, "\(third.output)")
            let completed = try #require(third.output.split(separator: "\n").first { $0.contains("\"completed\"") })
            let fields = try #require(try JSONSerialization.jsonObject(with: Data(completed.utf8)) as? [String: Any])
            #expect(fields["path"] as? String == path && completed.contains("\"alreadyPresent\":true")
                    && completed.contains("\"bytes\":\(length)"), "\(completed)")
            #expect(server.records.count == 2)
        }

        @Test("Ctrl-C pauses and keeps the partial data with its sidecar; the same command then finishes the file")
        func interruptAndResume() async throws {
            let length = 8 * Self.mebibyte
            let server = try RangeServer(.init(length: length, stallAfterBytes: 2 * Self.mebibyte + 1234))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let url = server.baseURL + "/a/cover.jpg"
            let first = try BookruleProcess(["download", url, "-o", directory] + Self.fast)
            try await eventually(seconds: 60) { server.isStalled }
            try await eventually(seconds: 60) { LocalFile.size(directory + "/cover.jpg.part") == Int64(2 * Self.mebibyte + 1234) }
            kill(first.process.processIdentifier, SIGINT)
            let interrupted = try await first.wait()
            #expect(interrupted.status == 1, "\(interrupted.output)")
            #expect(interrupted.output.contains("paused cover.jpg"))
            #expect(interrupted.output.contains("run the same command again"))
            let sidecar = try PartialDownloadRecord.decode(try LocalFile.read(directory + "/cover.jpg.part.json"))
            // Pausing commits everything that arrived.
            #expect(sidecar.committedBytes == Int64(2 * Self.mebibyte + 1234))
            #expect(LocalFile.size(directory + "/cover.jpg.part") == sidecar.committedBytes)

            let second = try await BookruleProcess(["download", url, "-o", directory] + Self.fast).wait()
            #expect(second.status == 0, "\(second.output)")
            #expect(server.records.last?.firstByte == Int(sidecar.committedBytes))
            #expect(try await RangeServer.sha256(ofFile: directory + "/cover.jpg") == RangeServer.expectedSHA256(length: length, version: 1))
        }

        @Test("--max-retries 0: a dropped connection fails the file (exit 1) and keeps its data; a rerun continues it")
        func maxRetriesAndResumeAfterFailure() async throws {
            let length = 3 * Self.mebibyte
            let server = try RangeServer(.init(length: length, dropAfterBytes: 2 * Self.mebibyte))
            defer { server.stop() }
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let url = server.baseURL + "/f/data.bin"
            let first = try await BookruleProcess(["download", url, "-o", directory, "--max-retries", "0"] + Self.fast).wait()
            #expect(first.status == 1, "\(first.output)")
            #expect(first.output.contains("failed data.bin"))
            #expect(server.records.count == 1)
            #expect((LocalFile.size(directory + "/data.bin.part") ?? 0) > Int64(Self.mebibyte))

            let second = try await BookruleProcess(["download", url, "-o", directory] + Self.fast).wait()
            #expect(second.status == 0, "\(second.output)")
            #expect(server.records.count == 2 && (server.records.last?.firstByte ?? 0) > Self.mebibyte)
            #expect(try await RangeServer.sha256(ofFile: directory + "/data.bin") == RangeServer.expectedSHA256(length: length, version: 1))
        }

        @Test("memory stays flat while a 200 MiB file downloads (peak RSS far below the file's size)")
        func flatMemory() async throws {
            let length = 200 * Self.mebibyte
            let server = try RangeServer(.init(length: length, lowPriority: true))
            defer { server.stop() }
            // On tmpfs when there is one, so 200 MiB of writes and their fsyncs don't stall the other tests' disk I/O.
            let directory = try roomyScratchDirectory()
            defer { try? FileManager.default.removeItem(atPath: directory) }
            let process = try BookruleProcess(["download", server.baseURL + "/big.bin", "-o", directory] + Self.fast)
            let pid = process.process.processIdentifier
            // Niced, so moving 200 MiB at full speed doesn't starve the wall-clock-bounded tests running alongside.
            _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), id_t(pid), 10)
            var baseline: Int?
            var peak = 0
            let deadline = ContinuousClock.now + .seconds(120)
            while process.process.isRunning && ContinuousClock.now < deadline {
                if let value = peakResidentKiB(pid) {
                    peak = max(peak, value)
                    if baseline == nil && !server.records.isEmpty { baseline = value }
                }
                try await Task.sleep(for: .milliseconds(5))
            }
            let result = try await process.wait()
            #expect(result.status == 0, "\(result.output)")
            #expect(LocalFile.size(directory + "/big.bin") == Int64(length))
            let start = try #require(baseline)
            print("bookrule download of 200 MiB: peak RSS \(peak / 1024) MiB, \((peak - start) / 1024) MiB above the start")
            #expect(peak - start < 60 * 1024, "peak RSS \(peak) KiB, at start \(start) KiB")
            #expect(peak < 100 * 1024, "peak RSS \(peak) KiB for a 200 MiB download")
        }

        @Test("usage errors exit 2: no URL, a non-http URL, a bad --jobs, --sha256 with several URLs")
        func usageErrors() async throws {
            for arguments in [["download"], ["download", "ftp://example.com/a"], ["download", "http://127.0.0.1:1/a", "--jobs", "0"],
                              ["download", "http://127.0.0.1:1/a", "http://127.0.0.1:1/b", "--sha256", String(repeating: "a", count: 64)]] {
                let result = try await BookruleProcess(arguments).wait()
                #expect(result.status == 2, "\(arguments): \(result.output)")
                #expect(result.output.contains("error:"))
            }
        }
    }
}

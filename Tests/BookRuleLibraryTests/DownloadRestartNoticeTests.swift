import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleLibrary
import BookRuleJSON
import BookRuleDocument
import BookRuleScript
import BookRuleHTTP
import BookRuleEngine
import TestSupport

/// A file server in memory: the first transfer drops after 4 of 10 bytes of version 1; later ones answer
/// with version 2 in full (a 200, whatever the range asked), and first wait, bounded, for the downloader to
/// say it restarts, noting whether it did before any of the new body was sent.
private final class ChangingFileTransport: HTTPTransport {
    struct Dropped: Error, CustomStringConvertible {
        var description: String { "connection reset" }
    }

    let log = Locked<DownloadEventLog?>(nil)
    let restartSaidBeforeBody = Locked<Bool?>(nil)
    private let calls = Locked(0)

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        throw Dropped()
    }

    func stream(_ request: HTTPRequest, to sink: any HTTPBodySink) async throws -> HTTPStreamResult {
        let call = calls.withLock { count -> Int in
            count += 1
            return count
        }
        let version = call == 1 ? "v1" : "v2"
        let head = HTTPResponseHead(url: request.url, status: 200, headers: [
            HTTPHeader("ETag", "\"\(version)\""), HTTPHeader("Content-Length", "10"), HTTPHeader("Accept-Ranges", "bytes"),
        ])
        guard sink.receiveHead(head) else { return HTTPStreamResult(head: head, bodyBytes: 0, stoppedBySink: true) }
        let body = [UInt8](repeating: call == 1 ? 0x31 : 0x32, count: call == 1 ? 4 : 10)
        if call > 1, let log = log.withLock({ $0 }) {
            let said = (try? await eventually(seconds: Double(5 * TestTime.scale)) { !log.restartReasons.isEmpty }) != nil
            restartSaidBeforeBody.withLock { $0 = said }
        }
        let accepted = body.withUnsafeBytes { sink.receiveBody($0) }
        if call == 1 { throw Dropped() }
        return HTTPStreamResult(head: head, bodyBytes: accepted ? body.count : 0, stoppedBySink: !accepted)
    }
}

@Suite("Download restarts are reported when the 200 comes")
struct DownloadRestartNoticeTests {
    @Test func aChangedFileIsReportedAsARestartBeforeItsNewBodyArrives() async throws {
        let directory = try scratchDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let transport = ChangingFileTransport()
        let task = MediaDownloadTask(id: "f", url: "https://files.example/f.bin", destination: directory + "/f.bin")
        let first = MediaDownloader(transport: transport, options: .init(maxAttempts: 1, commitBytes: 1))
        guard case .failed? = try await download(task, through: first) else { throw TestFailure("the first run should fail") }
        #expect(LocalFile.size(task.partPath) == 4)

        let second = MediaDownloader(transport: transport, options: .init(commitBytes: 1))
        let log = DownloadEventLog(second)
        transport.log.withLock { $0 = log }
        #expect(try await download(task, through: second) == .completed)
        #expect(transport.restartSaidBeforeBody.withLock { $0 } == true)
        #expect(log.restartReasons == ["the file changed on the server (ETag \"v1\" → \"v2\")"])
        #expect(try LocalFile.read(task.destination) == [UInt8](repeating: 0x32, count: 10))
    }
}

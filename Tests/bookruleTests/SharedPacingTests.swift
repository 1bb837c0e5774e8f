import Foundation
import Testing
import TestSupport

@Suite(.timeLimit(.minutes(2 * TestTime.scale)))
struct SharedPacingTests {
    /// Each `bookrule chapter` is a process of its own; the two loops run at the same time. Only the shared
    /// host state under XDG_STATE_HOME can keep them apart.
    @Test("Two concurrent `bookrule chapter` processes against one host keep every gap ≥ the delay")
    func twoProcessesKeepTheGap() async throws {
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let site = try MirrorSite(host: "127.0.0.2", chapters: 8)
        defer { site.server.stop() }
        let source = try site.sourceFile(named: "mirror", in: directory)
        let delay = 0.3
        func loop(_ chapters: ClosedRange<Int>) -> String {
            "(for n in \(chapters.map(String.init).joined(separator: " "))"
                + "; do bookrule chapter --source \(source) --delay \(delay) \(site.baseURL)/book/1/$n.html"
                + " > \(directory)/out-$n.txt 2>&1 || echo \"chapter $n failed\"; done)"
        }
        let script = "\(loop(1...4)) & \(loop(5...8)) & wait"
        let run = try await runBash(["-c", script], environment: [
            "XDG_STATE_HOME": directory + "/state", "XDG_DATA_HOME": directory + "/data",
        ])
        #expect(run.status == 0 && !run.output.contains("failed"), "\(run.output)")
        for number in 1...8 {
            let output = (try? String(contentsOfFile: directory + "/out-\(number).txt", encoding: .utf8)) ?? ""
            #expect(output.contains("镜像正文 \(number * 37 + 1)"), "chapter \(number): \(output)")
            #expect(!output.contains("warning"), "chapter \(number): \(output)")
        }
        #expect(FileManager.default.fileExists(atPath: directory + "/state/bookrule/hosts.sqlite"))
        let records = site.server.records.sorted { $0.arrivedAt < $1.arrivedAt }
        #expect(records.count == 8)
        #expect(site.server.maxInFlight == 1)
        for (previous, next) in zip(records, records.dropFirst()) {
            guard let end = previous.finishedAt else {
                Issue.record("\(previous.path) has no end")
                continue
            }
            // 5 ms for clock granularity only: the server stamps arrival after accepting, the client's gap is
            // measured from a later end.
            #expect(next.arrivedAt - end >= delay - 0.005, "\(previous.path) → \(next.path)")
        }
    }
}

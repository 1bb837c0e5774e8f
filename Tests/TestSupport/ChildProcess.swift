import Foundation

/// A child process awaited without holding a thread of the cooperative pool: the pool has one thread per core
/// (two here), and a test blocked in `waitUntilExit` stalled every other test's timers and servers.
package enum ChildProcess {
    /// Starts `process` (set up by the caller), runs `started` once it runs (to write its standard input; if
    /// that fails the child is ended), and returns its exit status when it ends.
    package static func run(_ process: Process, started: () throws -> Void = {}) async throws -> Int32 {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Int32, any Error>) in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
                return
            }
            // The handler resumes once the child ends, however `started` went.
            do { try started() } catch { process.terminate() }
        }
    }

    /// Runs `executable` with `arguments` (and `environment`, else this process's): its exit status and what it
    /// printed on standard output (and standard error with `mergingErrors`), read once it has ended. For
    /// children that print less than a pipe holds (64 KiB); one that prints more writes into a file.
    package static func output(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                               mergingErrors: Bool = true) async throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        if let environment { process.environment = environment }
        let pipe = Pipe()
        process.standardOutput = pipe
        if mergingErrors { process.standardError = pipe }
        let status = try await run(process)
        return (status, String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self))
    }
}

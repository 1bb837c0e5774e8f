import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// The built `bookrule` executable, run as a real subprocess.
struct BookruleProcess {
    static var executable: String {
        BuiltProducts.bookrule
    }

    let process = Process()
    let output = Pipe()

    init(_ arguments: [String]) throws {
        process.executableURL = URL(fileURLWithPath: Self.executable)
        process.arguments = arguments
        // The shared host state of this test run, not the user's.
        var environment = ProcessInfo.processInfo.environment
        environment["XDG_STATE_HOME"] = NSTemporaryDirectory() + "bookrule-test-state-\(getpid())"
        process.environment = environment
        process.standardOutput = output
        process.standardError = output
        try process.run()
    }

    /// Waits up to `seconds` for the process to end; returns its exit status and output.
    func wait(seconds: Double = 60) async throws -> (status: Int32, output: String) {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while process.isRunning {
            if ContinuousClock.now > deadline {
                kill(process.processIdentifier, SIGKILL)
                throw TestFailure("bookrule did not finish within \(seconds) s")
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }
}

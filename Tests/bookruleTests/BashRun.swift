import Foundation
import TestSupport

/// Runs bash with `arguments` (a script file, or `-c` and a script), this build's `bookrule` first on PATH and
/// `environment` added, in `directory` when given; returns its exit status and output (stdout and stderr
/// together). For tests that drive the CLI the way a user's shell does.
func runBash(_ arguments: [String], in directory: String? = nil,
             environment extra: [String: String] = [:]) async throws -> (status: Int32, output: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/bash")
    process.arguments = arguments
    if let directory { process.currentDirectoryURL = URL(fileURLWithPath: directory) }
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = BuiltProducts.directory + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    environment.merge(extra) { $1 }
    process.environment = environment
    // Into a file, not a pipe: a pipe read only after the exit would stall a child writing more than its
    // 64 KiB buffer, and reading it meanwhile would hold a thread of the cooperative pool.
    let scratch = try ScratchDirectory("bash")
    let outputPath = scratch.path + "/output"
    guard FileManager.default.createFile(atPath: outputPath, contents: nil),
          let output = FileHandle(forWritingAtPath: outputPath) else {
        throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: outputPath])
    }
    defer { try? output.close() }
    process.standardOutput = output
    process.standardError = output
    let status = try await ChildProcess.run(process)
    // The directory must outlive the read (it is removed when `scratch` goes).
    return try withExtendedLifetime(scratch) {
        (status, String(decoding: try Data(contentsOf: URL(fileURLWithPath: outputPath)), as: UTF8.self))
    }
}


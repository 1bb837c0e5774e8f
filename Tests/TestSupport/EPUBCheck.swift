import Foundation

/// The W3C's epubcheck, run on an exported EPUB when Java and epubcheck are installed (apt-get install epubcheck):
/// the export tests' and `bookrule fetch --epub`'s proof that a book is valid EPUB.
package enum EPUBCheck {
    /// Java and epubcheck's jar, or nil when either is absent.
    package static let tool: (java: String, jar: String)? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let java = path.split(separator: ":").map { $0 + "/java" }.first { FileManager.default.isExecutableFile(atPath: $0) }
        let jar = ["/usr/bin/epubcheck", "/usr/share/java/epubcheck.jar"].first { FileManager.default.fileExists(atPath: $0) }
        guard let java, let jar else { return nil }
        return (java, jar)
    }()

    /// Runs epubcheck on `path`: its exit status and report.
    package static func run(_ path: String, tool: (java: String, jar: String)) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool.java)
        // /usr/bin/epubcheck is the jar itself (run through binfmt_misc where configured), so call Java directly.
        process.arguments = ["-jar", tool.jar, path]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        // Wait without holding a thread of the cooperative pool: Java takes seconds, and other tests' timers
        // need those threads. (epubcheck's report is far smaller than a pipe's buffer.)
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { finished in
                let data = output.fileHandleForReading.readDataToEndOfFile()
                continuation.resume(returning: (finished.terminationStatus, String(decoding: data, as: UTF8.self)))
            }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

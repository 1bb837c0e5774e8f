import Foundation

/// The outside tools the OPDS tests check the catalog with, each found when installed: `epubcheck` (an EPUB
/// from the catalog must pass it) and `jing` (every feed must match RFC 4287's RELAX NG schema), both Java.
enum OPDSTools {
    /// Java, when on the PATH.
    static let java: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { $0 + "/java" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// epubcheck's jar (Debian's `/usr/bin/epubcheck` is the jar itself).
    static let epubcheck: String? = java == nil ? nil
        : ["/usr/bin/epubcheck", "/usr/share/java/epubcheck.jar"].first { FileManager.default.fileExists(atPath: $0) }

    /// jing's jar (Debian's `jing` package brings it, in `libjing-java`).
    static let jing: String? = java == nil ? nil
        : ["/usr/share/java/jing.jar"].first { FileManager.default.fileExists(atPath: $0) }

    /// RFC 4287's schema, appendix B, kept under Fixtures/opds.
    static let atomSchema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/opds/atom-rfc4287.rnc").path

    /// Runs `java -jar JAR ARGUMENTS`: its exit status and what it printed. Waits without holding a thread of
    /// the cooperative pool (Java takes seconds).
    static func runJar(_ jar: String, _ arguments: [String]) async throws -> (Int32, String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: java ?? "/usr/bin/java")
        process.arguments = ["-jar", jar] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
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

    /// The names of the files in the zip at `path` (python3's zipfile: the tests' Python is a declared tool).
    static func zipNames(_ path: String) async throws -> [String] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", "-c", "import sys, zipfile\nfor n in zipfile.ZipFile(sys.argv[1]).namelist(): print(n)", path]
        let output = Pipe()
        process.standardOutput = output
        return try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { _ in
                let data = output.fileHandleForReading.readDataToEndOfFile()
                continuation.resume(returning: String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init))
            }
            do {
                try process.run()
            } catch {
                continuation.resume(throwing: error)
            }
        }
    }
}

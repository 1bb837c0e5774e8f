import Foundation
import TestSupport

/// The outside tool the OPDS tests check the catalog's feeds with when installed: `jing` (every feed must match
/// RFC 4287's RELAX NG schema), in Java; an EPUB from the catalog is checked with `EPUBCheck` (TestSupport).
enum OPDSTools {
    /// Java, when on the PATH.
    static let java: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { $0 + "/java" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }()

    /// jing's jar (Debian's `jing` package brings it, in `libjing-java`).
    static let jing: String? = java == nil ? nil
        : ["/usr/share/java/jing.jar"].first { FileManager.default.fileExists(atPath: $0) }

    /// RFC 4287's schema, appendix B, kept under Fixtures/opds.
    static let atomSchema = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("Fixtures/opds/atom-rfc4287.rnc").path

    /// Runs `java -jar JAR ARGUMENTS`: its exit status and what it printed.
    static func runJar(_ jar: String, _ arguments: [String]) async throws -> (Int32, String) {
        try await ChildProcess.output(java ?? "/usr/bin/java", ["-jar", jar] + arguments)
    }

    /// The names of the files in the zip at `path` (python3's zipfile: the tests' Python is a declared tool).
    static func zipNames(_ path: String) async throws -> [String] {
        let listing = try await ChildProcess.output("/usr/bin/env", [
            "python3", "-c", "import sys, zipfile\nfor n in zipfile.ZipFile(sys.argv[1]).namelist(): print(n)", path,
        ], mergingErrors: false)
        return listing.output.split(separator: "\n").map(String.init)
    }
}

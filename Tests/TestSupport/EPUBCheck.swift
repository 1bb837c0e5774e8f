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
        // /usr/bin/epubcheck is the jar itself (run through binfmt_misc where configured), so call Java directly.
        try await ChildProcess.output(tool.java, ["-jar", tool.jar, path])
    }
}

import BookRuleJSON
import Foundation

/// The studio's page files (HTML, CSS, JavaScript from `Sources/Studio/Assets`, copied next to the executable
/// by SwiftPM as a resource bundle) and the CodeMirror files Debian's `libjs-codemirror` installs, all read
/// once at start and served from memory by name: no request names a path on disk, so none can reach one.
package struct StudioAssets: Sendable {
    /// File contents by the name they are served under (`index.html`, `studio.js`, …).
    package let files: [String: [UInt8]]
    /// CodeMirror's files by their path under `/codemirror/`; empty when the package is not installed (the
    /// page then edits the source in a plain textarea).
    package let codeMirror: [String: [UInt8]]

    /// Assets given in memory (the fuzz target's studio has no files on disk).
    package init(files: [String: [UInt8]], codeMirror: [String: [UInt8]]) {
        self.files = files
        self.codeMirror = codeMirror
    }

    /// The studio's own files.
    static let names = ["index.html", "studio.js", "studio.css", "frame.css"]
    /// The CodeMirror 5 files the page loads, relative to its directory.
    static let codeMirrorNames = [
        "lib/codemirror.js", "lib/codemirror.css", "mode/javascript/javascript.js", "addon/edit/matchbrackets.js",
        "addon/edit/closebrackets.js",
    ]
    /// Where Debian installs CodeMirror.
    package static let debianCodeMirror = "/usr/share/javascript/codemirror"

    /// Reads the files from `directory` (default: the resource bundle beside the executable, or
    /// `BOOKRULE_STUDIO_ASSETS`) and CodeMirror from `codeMirrorDirectory`.
    package static func load(directory: String? = nil, codeMirrorDirectory: String = debianCodeMirror) throws(StudioError) -> StudioAssets {
        let candidates = directory.map { [$0] } ?? defaultDirectories()
        guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0 + "/index.html") }) else {
            throw .missingAssets(searched: candidates)
        }
        var files: [String: [UInt8]] = [:]
        for name in names {
            do {
                files[name] = try LocalFile.read(found + "/" + name)
            } catch {
                throw .missingAssets(searched: [found + "/" + name])
            }
        }
        var codeMirror: [String: [UInt8]] = [:]
        for name in codeMirrorNames {
            if let bytes = try? LocalFile.read(codeMirrorDirectory + "/" + name) { codeMirror[name] = bytes }
        }
        // Without the editor and its JSON mode the page falls back to a textarea: serve all or nothing.
        if codeMirror["lib/codemirror.js"] == nil || codeMirror["mode/javascript/javascript.js"] == nil { codeMirror = [:] }
        return StudioAssets(files: files, codeMirror: codeMirror)
    }

    /// `BOOKRULE_STUDIO_ASSETS`, then SwiftPM's resource bundle next to the running executable (where
    /// `swift build` puts it for `bookrule` and for the test runner alike).
    static func defaultDirectories() -> [String] {
        var result: [String] = []
        if let override = ProcessInfo.processInfo.environment["BOOKRULE_STUDIO_ASSETS"], !override.isEmpty { result.append(override) }
        if let executable = StudioFiles.realPath("/proc/self/exe") {
            let directory = String(executable[..<(executable.lastIndex(of: "/") ?? executable.endIndex)])
            result.append(directory + "/bookrule_BookRuleStudio.resources/Assets")
        }
        return result
    }

    /// The `Content-Type` for a file name.
    static func contentType(_ name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        return "application/octet-stream"
    }
}

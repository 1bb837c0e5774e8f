import BookRuleJSON
import Foundation

/// The studio's page files (HTML, CSS, JavaScript from `Sources/Studio/Assets`, compiled into the binary by
/// SwiftPM's `.embedInCode`, so an installed or copied `bookrule` needs no resource folder beside it) and the
/// CodeMirror files Debian's `libjs-codemirror` installs, read once at start and served from memory by name:
/// no request names a path on disk, so none can reach one.
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

    /// The page's files compiled into the binary, by the name they are served under.
    static let embedded: [String: [UInt8]] = [
        "index.html": PackageResources.index_html, "studio.js": PackageResources.studio_js,
        "studio.css": PackageResources.studio_css, "frame.css": PackageResources.frame_css,
    ]

    /// The page's files from `directory` (or `BOOKRULE_STUDIO_ASSETS`: edit them without rebuilding), else the
    /// ones compiled in; CodeMirror from `codeMirrorDirectory`.
    package static func load(directory: String? = nil, codeMirrorDirectory: String = debianCodeMirror) throws(StudioError) -> StudioAssets {
        var files = embedded
        if let found = directory ?? overrideDirectory() {
            for name in names {
                do {
                    files[name] = try LocalFile.read(found + "/" + name)
                } catch {
                    throw .missingAssets(searched: [found + "/" + name])
                }
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

    /// `BOOKRULE_STUDIO_ASSETS`, when set: a folder holding the page's files, read instead of the compiled ones.
    static func overrideDirectory() -> String? {
        guard let override = ProcessInfo.processInfo.environment["BOOKRULE_STUDIO_ASSETS"], !override.isEmpty else { return nil }
        return override
    }

    /// The `Content-Type` for a file name.
    static func contentType(_ name: String) -> String {
        if name.hasSuffix(".html") { return "text/html; charset=utf-8" }
        if name.hasSuffix(".css") { return "text/css; charset=utf-8" }
        if name.hasSuffix(".js") { return "text/javascript; charset=utf-8" }
        return "application/octet-stream"
    }
}

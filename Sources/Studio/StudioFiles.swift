#if canImport(Glibc)
import Glibc
#endif

/// The only files the studio reads or writes: the source file (and its backup beside it) and the files inside
/// its fixture directory. Every path a request names is resolved with `realpath` (so `..` and symlinks are
/// followed to where they really lead) and refused unless it lands inside those.
package struct StudioFiles: Sendable {
    /// The source file's real path (its directory resolved; the file itself may not exist yet), if any.
    package let sourcePath: String?
    /// The fixture directory's real path, if it exists.
    package let fixtureDirectory: String?

    /// Resolves `sourcePath` and `fixtureDirectory` once, at start.
    package init(sourcePath: String?, fixtureDirectory: String?) {
        self.sourcePath = sourcePath.flatMap(Self.resolvedFile)
        self.fixtureDirectory = fixtureDirectory.flatMap(Self.realPath)
    }

    /// Where the previous version of the source is kept when it is saved.
    package var backupPath: String? { sourcePath.map { $0 + ".bak" } }

    /// The real path of `relative` inside the fixture directory, which must exist and be a regular file there.
    package func fixtureFile(_ relative: String) throws(StudioRefusal) -> String {
        guard let fixtureDirectory else { throw .forbidden("there is no fixture directory (give one with --fixtures)") }
        guard !relative.isEmpty, !relative.hasPrefix("/"), !relative.utf8.contains(0) else {
            throw .forbidden("\"\(relative)\" is not a path inside the fixture directory")
        }
        guard let resolved = Self.realPath(fixtureDirectory + "/" + relative) else {
            throw .notFound("\(relative) does not exist in the fixture directory")
        }
        guard Self.isInside(resolved, directory: fixtureDirectory) else {
            throw .forbidden("\(relative) leads outside the fixture directory")
        }
        var info = stat()
        guard stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw .forbidden("\(relative) is not a regular file")
        }
        return resolved
    }

    /// A file of `directory` (a real path) named `name`, checked to stay in it: not `..`, no `/`.
    package static func isInside(_ path: String, directory: String) -> Bool {
        path.hasPrefix(directory.hasSuffix("/") ? directory : directory + "/")
    }

    /// `realpath(3)`, or nil when the path does not exist.
    package static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// A file's real path: its own when it exists, else its directory's real path plus its name.
    static func resolvedFile(_ path: String) -> String? {
        if let real = realPath(path) { return real }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { String(path[..<$0]) } ?? "."
        let name = slash.map { String(path[path.index(after: $0)...]) } ?? path
        guard !name.isEmpty, name != ".", name != "..", let real = realPath(directory.isEmpty ? "/" : directory) else { return nil }
        return (real == "/" ? "" : real) + "/" + name
    }
}

import BookRuleHTTP

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

    /// The real path of `relative` inside the fixture directory, which must exist and be a regular file there
    /// (`FixtureFile`'s confinement, the one the checks use).
    package func fixtureFile(_ relative: String) throws(StudioRefusal) -> String {
        let directory = try requireFixtureDirectory()
        let resolved: String
        do {
            resolved = try FixtureFile.resolve(relative, in: directory)
        } catch {
            throw Self.refusal(error)
        }
        var info = stat()
        guard stat(resolved, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
            throw .forbidden("\(relative) is not a regular file")
        }
        return resolved
    }

    /// The real path and the bytes of `relative` inside the fixture directory: a regular file of at most
    /// `FixtureFile.sizeLimit` bytes, checked before it is opened, so a FIFO or a huge file cannot wedge the studio.
    package func readFixtureFile(_ relative: String) throws(StudioRefusal) -> (path: String, bytes: [UInt8]) {
        let directory = try requireFixtureDirectory()
        do {
            return (try FixtureFile.resolve(relative, in: directory), try FixtureFile.read(relative, in: directory))
        } catch {
            throw Self.refusal(error)
        }
    }

    private func requireFixtureDirectory() throws(StudioRefusal) -> String {
        guard let fixtureDirectory else { throw .forbidden("there is no fixture directory (give one with --fixtures)") }
        return fixtureDirectory
    }

    private static func refusal(_ error: FixtureFileError) -> StudioRefusal {
        if case .cannotRead(let path, _) = error, realPath(path) == nil { return .notFound(error.description) }
        return .forbidden(error.description)
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

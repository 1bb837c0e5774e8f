import Foundation
import BookRuleHTTP
import BookRuleJSON

/// Reads, compares and writes `expected.json` snapshots.
public enum SnapshotStore {
    /// The snapshot as stable JSON: sorted keys, pretty-printed, slashes unescaped, so diffs stay readable.
    public static func encode(_ snapshot: Snapshot) throws -> [UInt8] {
        try JSONWriter.bytes(snapshot, style: .pretty)
    }

    /// Compares `snapshot` with the one stored at `path`; nil when nothing is stored there. The stored file is
    /// a fixture file: it must be a regular file inside its directory (`FixtureFile`), so a FIFO is refused
    /// instead of blocking the run and a symbolic link out is refused instead of showing its target in the diff.
    public static func compare(_ snapshot: Snapshot, withFileAt path: String) throws -> SnapshotComparison? {
        let (directory, name) = split(path)
        guard FileManager.default.fileExists(atPath: path) else { return nil }
        let stored = try FixtureFile.read(name, in: try FixtureFile.directory(directory))
        let current = try encode(snapshot)
        if stored == current { return SnapshotComparison(path: path, matches: true, diff: []) }
        // A snapshot written in another layout (by hand, or by a bookrule whose JSON spacing differed) is
        // compared as JSON, and its diff shows only what changed.
        let restated = (try? JSONParser.parse(stored)).map { JSONWriter.bytes($0.value, style: .pretty) } ?? stored
        if restated == current { return SnapshotComparison(path: path, matches: true, diff: []) }
        return SnapshotComparison(path: path, matches: false,
                                  diff: lineDiff(old: String(decoding: restated, as: UTF8.self),
                                                 new: String(decoding: current, as: UTF8.self)))
    }

    /// Writes `snapshot` to `path` atomically, creating its directory. A symbolic link at `path` is written
    /// through only when it leads to a file inside the same directory; one leading out is refused.
    public static func write(_ snapshot: Snapshot, to path: String) throws {
        let (directory, name) = split(path)
        try LocalFile.makeDirectories(directory)
        let inside = try FixtureFile.directory(directory)
        // A name that does not resolve (nothing there, or a dangling link) is replaced by the rename itself.
        let target = FileManager.default.fileExists(atPath: path) ? try FixtureFile.resolve(name, in: inside) : inside + "/" + name
        try LocalFile.writeAtomically(try encode(snapshot), to: target)
    }

    /// `path`'s directory and file name.
    private static func split(_ path: String) -> (directory: String, name: String) {
        guard let slash = path.lastIndex(of: "/") else { return (".", path) }
        let directory = String(path[..<slash])
        return (directory.isEmpty ? "/" : directory, String(path[path.index(after: slash)...]))
    }

    /// The changed region between two texts: the lines they share at the start and the end are left out
    /// (with a line of context each side), the rest shown as `-old` and `+new`, at most `limit` lines.
    static func lineDiff(old: String, new: String, limit: Int = 200) -> [String] {
        let before = old.split(separator: "\n", omittingEmptySubsequences: false)
        let after = new.split(separator: "\n", omittingEmptySubsequences: false)
        var prefix = 0
        while prefix < before.count, prefix < after.count, before[prefix] == after[prefix] { prefix += 1 }
        var suffix = 0
        while suffix < before.count - prefix, suffix < after.count - prefix,
              before[before.count - 1 - suffix] == after[after.count - 1 - suffix] {
            suffix += 1
        }
        var lines: [String] = ["@@ line \(prefix + 1) @@"]
        if prefix > 0 { lines.append(" " + before[prefix - 1]) }
        lines += before[prefix..<(before.count - suffix)].map { "-" + $0 }
        lines += after[prefix..<(after.count - suffix)].map { "+" + $0 }
        if suffix > 0 { lines.append(" " + before[before.count - suffix]) }
        if lines.count > limit {
            let hidden = lines.count - limit
            lines = Array(lines.prefix(limit)) + ["… \(hidden) more line(s)"]
        }
        return lines
    }
}

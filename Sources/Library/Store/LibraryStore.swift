import Foundation
import BookRuleJSON

/// The offline library: books, their tables of contents and the text of every chapter fetched, in one SQLite
/// file that survives crashes and reruns.
///
/// - Each chapter is saved in its own transaction, keyed by its canonical URL (the URL without `#fragment`), so a
///   kill -9 at any moment loses at most the chapter being written and the library always opens again.
/// - A rerun asks `chaptersToFetch(bookID:)`: saved chapters are skipped, failed ones retried, and chapters new
///   in the TOC (after `mergeTOC`) fetched; existing chapters keep their text.
/// - A chapter that keeps failing stays `failed` with its last error (`markFailed`); empty text is refused, so no
///   placeholder is ever stored as a chapter.
/// - Two processes may open the same library: writes wait up to the busy timeout for each other, and past it
///   fail with `LibraryError.busy`, which says so plainly. Reads never wait for a writer (WAL).
///
/// Chapter texts live in their own table (`chapter_texts`, keyed by chapter id), so listing a book's chapters
/// reads small rows and never pages through the texts.
///
/// Methods block the calling thread for the duration of their SQLite work (milliseconds, or up to the busy
/// timeout when another process writes). The store is safe to share between threads and tasks.
public final class LibraryStore: Sendable {
    /// The library file.
    public let path: String
    /// The schema version this build creates and reads (`PRAGMA user_version`).
    public static var schemaVersion: Int { migrations.count }

    let database: SQLiteDatabase
    let now: @Sendable () -> Date

    /// Where the library lives when `--library` is not given: `$XDG_DATA_HOME/bookrule/library.sqlite`, or
    /// `~/.local/share/bookrule/library.sqlite` when `XDG_DATA_HOME` is unset, empty or relative (the XDG
    /// specification says to ignore a relative value).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let data = environment["XDG_DATA_HOME"], data.hasPrefix("/") {
            return trimmingTrailingSlashes(data) + "/bookrule/library.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return trimmingTrailingSlashes(home) + "/.local/share/bookrule/library.sqlite"
    }

    /// Where the scripts of sources keep their `cache` and `source.setVariable` values for the library at
    /// `path`: `script-cache/` beside it, one JSON file per source.
    public static func scriptCacheDirectory(forLibraryAt path: String) -> String {
        folder(ofLibraryAt: path) + "/script-cache"
    }

    /// Opens the library at `path`, creating it (and its parent directories) when missing and bringing an older
    /// schema up to date.
    ///
    /// - Parameters:
    ///   - path: the library's database file.
    ///   - busyTimeout: how long a write waits for another process's write to finish before failing
    ///     with `LibraryError.busy`.
    /// - Throws: `LibraryError.newerSchema` for a library written by a newer bookrule, `.notALibrary` for a file
    ///   that is not one, `.busy`, `.cannotCreateDirectory`, or `.sqlite` with SQLite's message.
    public convenience init(path: String, busyTimeout: Duration = .seconds(5)) throws(LibraryError) {
        try self.init(path: path, busyTimeout: busyTimeout, now: { Date() })
    }

    /// Creates the directory a database file at `path` goes in (and its parents), so a first run can open
    /// `$XDG_DATA_HOME/bookrule/library.sqlite` or `$XDG_STATE_HOME/bookrule/hosts.sqlite` on a fresh account.
    static func makeParentDirectory(of path: String) throws(LibraryError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        do {
            try LocalFile.makeDirectories(String(path[..<slash]))
        } catch {
            throw .cannotCreateDirectory(path: error.path, reason: error.reason)
        }
    }

    /// Opens the library with a clock of the caller's choosing (tests).
    init(path: String, busyTimeout: Duration, now: @escaping @Sendable () -> Date) throws(LibraryError) {
        try Self.makeParentDirectory(of: path)
        self.path = path
        self.now = now
        database = try SQLiteDatabase(path: path, busyTimeout: busyTimeout)
        try migrate()
    }
}

import BookRuleLocking
import CSQLite

/// A value bound to a statement parameter or read from a column.
enum SQLiteValue: Sendable, Equatable {
    case integer(Int64)
    case real(Double)
    case text(String)
    case blob([UInt8])
    case null
}

/// Anything that binds as one SQLite value: `Int64`, `Int`, `Bool` (0/1), `Double`, `String`, `[UInt8]`, an
/// optional of those (nil binds NULL), or a `SQLiteValue` itself.
protocol SQLiteBindable {
    /// The value as SQLite stores it.
    var sqliteValue: SQLiteValue { get }
}

extension SQLiteValue: SQLiteBindable {
    var sqliteValue: SQLiteValue { self }
}

extension Int64: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(self) }
}

extension Int: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(Int64(self)) }
}

extension Bool: SQLiteBindable {
    var sqliteValue: SQLiteValue { .integer(self ? 1 : 0) }
}

extension Double: SQLiteBindable {
    var sqliteValue: SQLiteValue { .real(self) }
}

extension String: SQLiteBindable {
    var sqliteValue: SQLiteValue { .text(self) }
}

extension Array: SQLiteBindable where Element == UInt8 {
    var sqliteValue: SQLiteValue { .blob(self) }
}

extension Optional: SQLiteBindable where Wrapped: SQLiteBindable {
    var sqliteValue: SQLiteValue { self?.sqliteValue ?? .null }
}

/// One SQLite connection to one library file, safe to share between threads.
///
/// **Threading.** The connection is opened with `SQLITE_OPEN_NOMUTEX` and every use goes through one lock (`Locked`),
/// held for a whole `execute`, `query` or `transaction`. `SQLITE_OPEN_FULLMUTEX` would only serialize single
/// C calls: a transaction is many calls (BEGIN, statements, COMMIT), and another thread's statement landing
/// between them would join (or be rolled back with) the wrong transaction. The mutex is not recursive: inside
/// `transaction` or `withConnection`, use the `SQLiteConnection` handed to the closure, never `self`.
///
/// **Readers.** `read` runs pure reads on a few read-only connections of their own (opened on first use, at most
/// `readerLimit`, each used by one thread at a time), so many threads reading at once (a server's) do not queue
/// on the one lock: in WAL mode readers run side by side, each seeing the last commit made before its
/// statement started, as on the main connection. When all are busy a read takes the main connection. Each
/// keeps the statements it compiled (by their SQL, up to `statementLimit`), so a read asked again is not parsed
/// again.
///
/// **Durability.** Opening sets `journal_mode=WAL`, `synchronous=NORMAL`, `foreign_keys=ON` and a busy timeout
/// (5 s by default). Writes are meant to run in `transaction`, which starts with `BEGIN IMMEDIATE`: the write
/// lock is taken (or waited for) up front, so a transaction never fails half-way because another process
/// started writing after it read.
final class SQLiteDatabase: @unchecked Sendable {
    /// The file as given to `init`, for messages.
    let path: String
    // Only touched with `lock` held; closed in deinit. `@unchecked Sendable` rests on that.
    private let handle: OpaquePointer
    private let lock = Locked(())
    private let busyMilliseconds: Int32
    /// The file the main connection opened, as SQLite resolved it (absolute), so a reader opens that file
    /// even if the process has changed its directory since; nil for a database in memory, which only its own
    /// connection sees (then every read takes the main connection).
    private let readerPath: String?
    /// The read-only connections not in use, and how many are open; each is used by the thread that took it
    /// off the list until it puts it back, and all are closed in deinit.
    private let readers = Locked((idle: [Reader](), open: 0))
    /// A read-only connection and the statements it keeps; only the thread that took it off `readers` uses it.
    fileprivate final class Reader: @unchecked Sendable {
        let handle: OpaquePointer
        /// Compiled statements by their SQL, reset after every use.
        var statements: [String: OpaquePointer] = [:]

        init(handle: OpaquePointer) {
            self.handle = handle
        }

        deinit {
            for statement in statements.values { sqlite3_finalize(statement) }
            sqlite3_close_v2(handle)
        }
    }
    /// How many statements a read-only connection keeps compiled at most.
    fileprivate static let statementLimit = 32
    /// Set around work that must not wait for the main connection's lock (`LibraryStore.readingWithoutWaiting`):
    /// `read` then fails with `.busy` when no read-only connection is free, and says so in it.
    @TaskLocal static var noWait: NoWaitRead?

    /// How many read-only connections `read` opens at most.
    static let readerLimit = 4

    /// SQLite's memory statistics off, once, before the first connection opens: they serialize every allocation
    /// of every connection behind one mutex, and bookrule never reads them.
    private static let memoryStatisticsOff: Void = { _ = bookrule_sqlite_disable_memory_statistics() }()

    /// Opens (creating when missing) the database at `path` and sets the pragmas above.
    init(path: String, busyTimeout: Duration = .milliseconds(5000)) throws(LibraryError) {
        Self.memoryStatisticsOff
        self.path = path
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let message = opened.map { String(cString: sqlite3_errmsg($0)) } ?? String(cString: sqlite3_errstr(status))
            sqlite3_close_v2(opened)
            throw SQLiteConnection.error(path: path, purpose: "opening the library", code: status, message: message)
        }
        handle = opened
        readerPath = sqlite3_db_filename(opened, "main").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
        let (seconds, attoseconds) = busyTimeout.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        // Without the timeout, a second process's write would fail at once with "busy" instead of waiting.
        // (Throwing from here on closes the handle in deinit.)
        busyMilliseconds = Int32(clamping: milliseconds)
        let timeout = sqlite3_busy_timeout(opened, busyMilliseconds)
        guard timeout == SQLITE_OK else {
            throw SQLiteConnection.error(path: path, purpose: "setting the busy timeout", code: timeout,
                                         message: String(cString: sqlite3_errmsg(opened)))
        }
        try withConnection { (connection) throws(LibraryError) in
            // WAL: readers never block the writer and the writer never blocks readers, so `bookrule list` works
            // while a download runs. A commit appends the transaction's pages to the -wal file followed by a
            // commit frame; recovery (on the next open) keeps frames up to the last valid commit frame and
            // ignores the rest, so a transaction is either wholly there or wholly absent.
            let mode = try connection.query("PRAGMA journal_mode=WAL", purpose: "switching to WAL journaling") {
                (row) throws(LibraryError) in row.text(0)
            }
            guard mode.first?.lowercased() == "wal" else {
                throw .sqlite(path: path, purpose: "switching to WAL journaling", code: SQLITE_ERROR,
                              message: "SQLite kept journal mode \(mode.first ?? "?") (is the library on a network "
                                + "filesystem? keep it on a local disk)")
            }
            // NORMAL in WAL mode writes each commit into the -wal file (the OS page cache) without an fsync; the
            // WAL is synced at checkpoints. A killed process (kill -9, a crash) loses nothing it committed: the
            // writes are already in the kernel, which writes them out. Only an OS crash or power cut can lose
            // the last few commits, and even then the database stays consistent (never corrupt). FULL would
            // add one disk flush per chapter for that power-cut case alone.
            try connection.execute("PRAGMA synchronous=NORMAL", purpose: "setting synchronous=NORMAL")
            // Per connection and off by default: without it ON DELETE CASCADE does nothing.
            try connection.execute("PRAGMA foreign_keys=ON", purpose: "enabling foreign keys")
        }
    }

    deinit {
        // Every statement was finalized by `SQLiteStatement`'s deinit when its scope ended, so the connection
        // closes at once (checkpointing and removing the WAL when it is the file's last connection).
        // The readers close as their `Reader`s go (the idle list is the last reference to each).
        readers.withLock { $0.idle.removeAll() }
        sqlite3_close_v2(handle)
    }

    /// Runs `body`, which only reads, on a read-only connection no other thread is using (see "Readers"), or
    /// on the main one when all are busy or none could be opened.
    func read<Value>(
        _ body: (borrowing SQLiteConnection) throws(LibraryError) -> Value
    ) throws(LibraryError) -> Value {
        guard let reader = takeReader() else {
            if let noWait = Self.noWait {
                noWait.refused = true
                throw .busy(path: path, purpose: "reading without waiting (every read-only connection is in use)")
            }
            return try withConnection(body)
        }
        var result: Result<Value, LibraryError>
        do throws(LibraryError) {
            let connection = SQLiteConnection(handle: reader.handle, path: path, reader: reader)
            result = .success(try body(connection))
        } catch {
            result = .failure(error)
        }
        readers.withLock { $0.idle.append(reader) }
        return try result.get()
    }

    /// An idle read-only connection, a new one while fewer than `readerLimit` are open, else nil.
    private func takeReader() -> Reader? {
        guard let readerPath else { return nil }
        let taken = readers.withLock { readers -> (reader: Reader?, opens: Bool) in
            if let idle = readers.idle.popLast() { return (idle, false) }
            guard readers.open < Self.readerLimit else { return (nil, false) }
            readers.open += 1
            return (nil, true)
        }
        if let reader = taken.reader { return reader }
        guard taken.opens else { return nil }
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        guard sqlite3_open_v2(readerPath, &opened, flags, nil) == SQLITE_OK, let opened,
              sqlite3_busy_timeout(opened, busyMilliseconds) == SQLITE_OK else {
            sqlite3_close_v2(opened)
            readers.withLock { $0.open -= 1 }
            return nil
        }
        return Reader(handle: opened)
    }

    /// Runs `body` with exclusive use of the connection (the lock held): several statements no other thread
    /// interleaves with, outside a transaction (each statement commits on its own).
    func withConnection<Value>(
        _ body: (borrowing SQLiteConnection) throws(LibraryError) -> Value
    ) throws(LibraryError) -> Value {
        var result: Value?
        try lock.withLock { (_) throws(LibraryError) in
            let connection = SQLiteConnection(handle: handle, path: path)
            result = try body(connection)
        }
        // `result` is set whenever withLock returned without throwing.
        return result.unsafelyUnwrapped
    }

    /// Runs `sql` (one or more statements, no parameters); `purpose` says what for in errors.
    func execute(_ sql: String, purpose: String) throws(LibraryError) {
        try withConnection { (connection) throws(LibraryError) in try connection.execute(sql, purpose: purpose) }
    }

    /// Runs one statement with `bindings` and maps each result row with `row`.
    func query<Row>(
        _ sql: String, purpose: String, bindings: [any SQLiteBindable] = [],
        row: (borrowing SQLiteStatement) throws(LibraryError) -> Row
    ) throws(LibraryError) -> [Row] {
        try withConnection { (connection) throws(LibraryError) in
            try connection.query(sql, purpose: purpose, bindings: bindings, row: row)
        }
    }

    /// Runs `body` in one write transaction: `BEGIN IMMEDIATE` (waiting up to the busy timeout for the write
    /// lock), `COMMIT` when `body` returns, `ROLLBACK` when it throws (the error is rethrown).
    func transaction<Value>(
        _ purpose: String, _ body: (borrowing SQLiteConnection) throws(LibraryError) -> Value
    ) throws(LibraryError) -> Value {
        try withConnection { (connection) throws(LibraryError) in
            try connection.execute("BEGIN IMMEDIATE", purpose: purpose)
            let result: Value
            do throws(LibraryError) {
                result = try body(connection)
                try connection.execute("COMMIT", purpose: purpose)
            } catch {
                // After some errors (SQLITE_FULL, SQLITE_IOERR…) SQLite has already rolled back; then ROLLBACK
                // fails with "no transaction is active", which is harmless.
                if !connection.isAutocommit { try? connection.execute("ROLLBACK", purpose: purpose) }
                throw error
            }
            return result
        }
    }
}

/// The connection while `SQLiteDatabase`'s lock is held. Non-copyable and only ever borrowed, so it cannot
/// escape the closure it is handed to.
struct SQLiteConnection: ~Copyable {
    fileprivate let handle: OpaquePointer
    /// The library file, for messages.
    let path: String
    /// The read-only connection whose statements `prepare` keeps; nil on the main connection.
    private let reader: SQLiteDatabase.Reader?

    fileprivate init(handle: OpaquePointer, path: String, reader: SQLiteDatabase.Reader? = nil) {
        self.handle = handle
        self.path = path
        self.reader = reader
    }

    /// Whether no transaction is open.
    var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// Rows changed by the last INSERT, UPDATE or DELETE.
    var changes: Int { Int(sqlite3_changes64(handle)) }

    /// The rowid of the last row inserted on this connection.
    var lastInsertRowID: Int64 { sqlite3_last_insert_rowid(handle) }

    /// Runs `sql` (one or more statements, no parameters).
    func execute(_ sql: String, purpose: String) throws(LibraryError) {
        let status = sqlite3_exec(handle, sql, nil, nil, nil)
        guard status == SQLITE_OK else { throw failure(status, purpose) }
    }

    /// Compiles one statement; it is finalized when the returned value goes out of scope.
    /// On a read-only connection the statement is kept for the next `prepare` of the same SQL instead (reset
    /// when it goes out of scope).
    func prepare(_ sql: String, purpose: String) throws(LibraryError) -> SQLiteStatement {
        if let kept = reader?.statements[sql] {
            return SQLiteStatement(handle: kept, connection: handle, path: path, purpose: purpose, kept: true)
        }
        let keeps = reader.map { $0.statements.count < SQLiteDatabase.statementLimit } ?? false
        var statement: OpaquePointer?
        let status = sqlite3_prepare_v3(handle, sql, -1, keeps ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0, &statement, nil)
        guard status == SQLITE_OK, let statement else {
            sqlite3_finalize(statement)
            throw failure(status == SQLITE_OK ? SQLITE_MISUSE : status, purpose)
        }
        if keeps { reader?.statements[sql] = statement }
        return SQLiteStatement(handle: statement, connection: handle, path: path, purpose: purpose, kept: keeps)
    }

    /// Runs one statement with `bindings` and maps each result row with `row`.
    func query<Row>(
        _ sql: String, purpose: String, bindings: [any SQLiteBindable] = [],
        row: (borrowing SQLiteStatement) throws(LibraryError) -> Row
    ) throws(LibraryError) -> [Row] {
        let statement = try prepare(sql, purpose: purpose)
        try statement.bind(bindings)
        var rows: [Row] = []
        while try statement.step() { rows.append(try row(statement)) }
        return rows
    }

    /// Runs one statement that returns no rows (INSERT, UPDATE, DELETE) and returns how many rows it changed.
    @discardableResult
    func run(_ sql: String, purpose: String, bindings: [any SQLiteBindable] = []) throws(LibraryError) -> Int {
        let statement = try prepare(sql, purpose: purpose)
        try statement.run(bindings)
        return changes
    }

    fileprivate func failure(_ status: Int32, _ purpose: String) -> LibraryError {
        let message = String(cString: sqlite3_errmsg(handle))
        return SQLiteConnection.error(path: path, purpose: purpose, code: status, message: message)
    }

    /// Maps a result code to the error users see: busy and not-a-database get their own messages.
    static func error(path: String, purpose: String, code: Int32, message: String) -> LibraryError {
        switch code & 0xff {
        case SQLITE_BUSY: return .busy(path: path, purpose: purpose)
        case SQLITE_NOTADB: return .notALibrary(path: path, reason: message)
        default: return .sqlite(path: path, purpose: purpose, code: code, message: message)
        }
    }
}

/// A compiled statement, finalized when it goes out of scope (it cannot be copied, so exactly once), or reset
/// when its read-only connection keeps it (its read ends there, as a finalized one's would). While a
/// `query` maps rows, the statement is also the current row: read its columns by index from 0.
struct SQLiteStatement: ~Copyable {
    private let handle: OpaquePointer
    private let connection: OpaquePointer
    private let path: String
    private let purpose: String
    /// Whether its connection keeps it: reset, not finalized, at the end.
    private let kept: Bool

    fileprivate init(handle: OpaquePointer, connection: OpaquePointer, path: String, purpose: String, kept: Bool = false) {
        self.handle = handle
        self.connection = connection
        self.path = path
        self.purpose = purpose
        self.kept = kept
    }

    deinit {
        if kept {
            sqlite3_reset(handle)
            sqlite3_clear_bindings(handle)
        } else {
            sqlite3_finalize(handle)
        }
    }

    /// Rewinds the statement and binds `values` to parameters 1, 2, …
    func bind(_ values: [any SQLiteBindable]) throws(LibraryError) {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        let expected = Int(sqlite3_bind_parameter_count(handle))
        guard values.count == expected else {
            throw .sqlite(path: path, purpose: purpose, code: SQLITE_RANGE,
                          message: "the statement takes \(expected) parameters, \(values.count) given")
        }
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let status: Int32
            switch value.sqliteValue {
            case .integer(let number):
                status = sqlite3_bind_int64(handle, index, number)
            case .real(let number):
                status = sqlite3_bind_double(handle, index, number)
            case .text(let text):
                var text = text
                status = text.withUTF8 { bytes in
                    if let start = bytes.baseAddress {
                        let characters = UnsafeRawPointer(start).assumingMemoryBound(to: CChar.self)
                        return sqlite3_bind_text64(handle, index, characters, sqlite3_uint64(bytes.count),
                                                   bookrule_sqlite_transient(), UInt8(SQLITE_UTF8))
                    }
                    // "" may have no buffer, and a NULL pointer would bind NULL: bind a copy of an empty C string.
                    var nul: CChar = 0
                    return sqlite3_bind_text64(handle, index, &nul, 0, bookrule_sqlite_transient(), UInt8(SQLITE_UTF8))
                }
            case .blob(let bytes):
                status = bytes.withUnsafeBytes { buffer in
                    guard let start = buffer.baseAddress, !buffer.isEmpty else {
                        // A NULL pointer would bind NULL; an empty blob is a zero-length blob.
                        return sqlite3_bind_zeroblob(handle, index, 0)
                    }
                    return sqlite3_bind_blob64(handle, index, start, sqlite3_uint64(buffer.count),
                                               bookrule_sqlite_transient())
                }
            case .null:
                status = sqlite3_bind_null(handle, index)
            }
            guard status == SQLITE_OK else { throw failure(status) }
        }
    }

    /// Moves to the next row: true when there is one, false when the statement is done.
    func step() throws(LibraryError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        case let status:
            // Rewound so it can run again; sqlite3_errmsg still describes this failure.
            sqlite3_reset(handle)
            throw failure(status)
        }
    }

    /// Binds `values` and runs the statement to its end (an INSERT, UPDATE or DELETE run once per row).
    func run(_ values: [any SQLiteBindable]) throws(LibraryError) {
        try bind(values)
        while try step() {}
    }

    /// Whether the column holds NULL.
    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    /// The column as an integer (NULL reads as 0).
    func int64(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    /// The column as an `Int` (NULL reads as 0).
    func int(_ column: Int32) -> Int { Int(sqlite3_column_int64(handle, column)) }

    /// The column as a real number (NULL reads as 0).
    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    /// The column as text (NULL reads as "").
    func text(_ column: Int32) -> String {
        guard let bytes = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
    }

    /// The column as text, nil for NULL.
    func optionalText(_ column: Int32) -> String? { isNull(column) ? nil : text(column) }

    /// The column as an integer, nil for NULL.
    func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }

    /// The column as bytes (NULL reads as none).
    func blob(_ column: Int32) -> [UInt8] {
        guard let bytes = sqlite3_column_blob(handle, column) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, column))
        return Array(UnsafeRawBufferPointer(start: bytes, count: count))
    }

    private func failure(_ status: Int32) -> LibraryError {
        let message = String(cString: sqlite3_errmsg(connection))
        return SQLiteConnection.error(path: path, purpose: purpose, code: status, message: message)
    }
}


/// Whether a read under `SQLiteDatabase.noWait` was refused for want of a free read-only connection. Written and
/// read on the one thread that runs the work.
public final class NoWaitRead: @unchecked Sendable {
    /// A read was refused.
    public fileprivate(set) var refused = false

    /// None refused yet.
    public init() {}
}

import Foundation
import BookRuleHTTP
import BookRuleJSON

/// The shared host state of every bookrule process on the machine: a small SQLite file holding, per host
/// (`scheme://host:port`), the earliest start of the next request, the `Retry-After` deadline, the failures in
/// a row and the breaker, and which process holds the host's turn. It is the `HostTurnLedger` the CLI gives
/// `PoliteFetcher`, so two runs against one host keep each gap ≥ the delay between them, and a long
/// `Retry-After` stops the next run too.
///
/// Every claim and release is one `BEGIN IMMEDIATE` transaction ("read the host's row, take the turn or say
/// when to ask again"), so two processes never both take a turn. Times are Unix time (wall clock): processes
/// share no monotonic clock. A turn held by a process that no longer exists (`kill -9`) is taken over at
/// once; one held longer than the lease (a hung process) is taken over after the lease.
///
/// Waiting for the file's lock is bounded by the busy timeout (1 s by default); past it, and for a damaged or
/// unwritable file, methods throw `HostStateError`, and the fetcher goes on pacing within its process.
public final class HostTurnStore: HostTurnLedger {
    /// The state file.
    public let path: String
    /// The file's schema version (`PRAGMA user_version`).
    public static let schemaVersion = 1

    /// How far the wall clock may step back (an NTP correction) before a holder's `busy_until` looks further
    /// ahead than any run writes and the turn is taken over as bogus.
    static let clockStepAllowance = Duration.seconds(10)

    private let database: SQLiteDatabase
    private let lease: Duration
    private let breakerCooldown: Duration
    private let pollInterval: Duration
    private let processID: Int32
    private let isAlive: @Sendable (Int32) -> Bool

    /// Where the state lives for a caller that has no path of its own: `$XDG_STATE_HOME/bookrule/hosts.sqlite`,
    /// or `~/.local/state/bookrule/hosts.sqlite` when `XDG_STATE_HOME` is unset, empty or relative (the XDG
    /// specification says to ignore a relative value).
    public static func defaultPath(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let state = environment["XDG_STATE_HOME"], state.hasPrefix("/") {
            return LibraryStore.trimmingTrailingSlashes(state) + "/bookrule/hosts.sqlite"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return LibraryStore.trimmingTrailingSlashes(home) + "/.local/state/bookrule/hosts.sqlite"
    }

    /// Opens (creating it and its directories when missing) the state file at `path`.
    ///
    /// - Parameters:
    ///   - path: the state file (`defaultPath()` for the one every bookrule process shares).
    ///   - busyTimeout: the longest wait for another process's lock on the file.
    ///   - lease: how long a turn may be held before others take it over (a hung process's request).
    ///   - breakerCooldown: how long no run sends to a host after its failures in a row reached the threshold.
    /// - Throws: `HostStateError` when the file cannot be created, opened or read.
    public convenience init(
        path: String, busyTimeout: Duration = .seconds(1), lease: Duration = .seconds(600),
        breakerCooldown: Duration = .seconds(600)
    ) throws(HostStateError) {
        try self.init(
            path: path, busyTimeout: busyTimeout, lease: lease, breakerCooldown: breakerCooldown,
            pollInterval: .milliseconds(25), processID: getpid(),
            isAlive: { pid in kill(pid, 0) == 0 || errno == EPERM })
    }

    /// Opens the file with a process identity and liveness test of the caller's choosing (tests).
    init(
        path: String, busyTimeout: Duration, lease: Duration, breakerCooldown: Duration, pollInterval: Duration,
        processID: Int32, isAlive: @escaping @Sendable (Int32) -> Bool
    ) throws(HostStateError) {
        self.path = path
        self.lease = lease
        self.breakerCooldown = breakerCooldown
        self.pollInterval = pollInterval
        self.processID = processID
        self.isAlive = isAlive
        do throws(LibraryError) {
            try LibraryStore.makeParentDirectory(of: path)
            database = try Self.retryingWhenBusy { () throws(LibraryError) in
                try SQLiteDatabase(path: path, busyTimeout: busyTimeout)
            }
            try Self.retryingWhenBusy { () throws(LibraryError) in try setUp() }
        } catch {
            throw HostStateError.from(error, path: path)
        }
    }

    /// Runs `body` again (up to 5 tries, 10–50 ms apart) when SQLite reports the file busy without waiting:
    /// opening a WAL file while another process's last connection closes it (checkpointing and removing the
    /// WAL), or switching it to WAL, fails at once with SQLITE_BUSY, which the busy timeout does not cover.
    private static func retryingWhenBusy<Value>(_ body: () throws(LibraryError) -> Value) throws(LibraryError) -> Value {
        var attempt = 0
        while true {
            do throws(LibraryError) {
                return try body()
            } catch .busy(let path, let purpose) {
                attempt += 1
                if attempt >= 5 { throw .busy(path: path, purpose: purpose) }
                usleep(useconds_t(10_000 * attempt))
            }
        }
    }

    /// Creates the table on first use; refuses a file of a newer schema.
    private func setUp() throws(LibraryError) {
        let path = self.path
        try database.transaction("setting up the host state") { (connection) throws(LibraryError) in
            let version = try connection.query("PRAGMA user_version", purpose: "reading the version") {
                (row) throws(LibraryError) in row.int(0)
            }.first ?? 0
            guard version <= Self.schemaVersion else {
                throw .newerSchema(path: path, found: version, supported: Self.schemaVersion)
            }
            guard version < Self.schemaVersion else { return }
            try connection.execute(
                """
                CREATE TABLE IF NOT EXISTS hosts(
                    origin TEXT PRIMARY KEY,
                    next_request_at REAL NOT NULL DEFAULT 0,
                    retry_after_until REAL,
                    failures INTEGER NOT NULL DEFAULT 0,
                    breaker_until REAL,
                    busy_pid INTEGER,
                    busy_token TEXT,
                    busy_until REAL
                );
                PRAGMA user_version = \(Self.schemaVersion);
                """, purpose: "creating the hosts table")
        }
    }

    /// One host's row.
    private struct Row {
        var nextRequestAt: Double = 0
        var retryAfterUntil: Double?
        var failures = 0
        var breakerUntil: Double?
        var busyPID: Int32?
        var busyToken: String?
        var busyUntil: Double?
    }

    /// Reads the row of `host`, creating an empty one when missing.
    private static func row(of host: String, _ connection: borrowing SQLiteConnection) throws(LibraryError) -> Row {
        try connection.run("INSERT OR IGNORE INTO hosts(origin) VALUES (?)", purpose: "adding a host", bindings: [host])
        let rows = try connection.query(
            """
            SELECT next_request_at, retry_after_until, failures, breaker_until, busy_pid, busy_token, busy_until
            FROM hosts WHERE origin = ?
            """, purpose: "reading a host", bindings: [host]
        ) { (row) throws(LibraryError) -> Row in
            Row(
                nextRequestAt: row.double(0), retryAfterUntil: row.isNull(1) ? nil : row.double(1), failures: row.int(2),
                breakerUntil: row.isNull(3) ? nil : row.double(3),
                busyPID: row.optionalInt64(4).map { Int32(clamping: $0) }, busyToken: row.optionalText(5),
                busyUntil: row.isNull(6) ? nil : row.double(6))
        }
        return rows.first ?? Row()
    }

    /// See `HostTurnLedger.claim`. Throws `HostStateError`.
    public func claim(
        host: String, token: String, serial: Bool, now: @autoclosure () -> Date, retryAfterCap: Duration
    ) throws -> HostTurnClaim {
        let cap = retryAfterCap.inSeconds
        // The furthest ahead an honest holder's `busy_until` can be.
        let longestHold = (lease + Self.clockStepAllowance).inSeconds
        let leaseSeconds = lease.inSeconds
        do throws(LibraryError) {
            return try Self.retryingWhenBusy { () throws(LibraryError) in try database.transaction("claiming a host's turn") { (connection) throws(LibraryError) in
                // Read under the lock (see `HostTurnLedger.claim`).
                let time = now().timeIntervalSince1970
                let row = try Self.row(of: host, connection)
                if let until = row.breakerUntil, until > time {
                    return .breakerOpen(failures: row.failures, until: Date(timeIntervalSince1970: until))
                }
                // A wait longer than the cap (a long Retry-After, or a time no honest run would have written)
                // defers the host instead of sleeping.
                let pause = max(row.retryAfterUntil ?? 0, serial ? row.nextRequestAt : 0)
                if pause - time > cap { return .deferred(until: Date(timeIntervalSince1970: pause)) }
                if pause > time { return .wait(until: Date(timeIntervalSince1970: pause)) }
                guard serial else { return .granted }
                if let holder = row.busyToken, holder != token, let until = row.busyUntil, until > time,
                   until - time <= longestHold, let pid = row.busyPID, pid == processID || isAlive(pid)
                {
                    return .wait(until: Date(timeIntervalSince1970: min(until, time + pollInterval.inSeconds)))
                }
                try connection.run(
                    "UPDATE hosts SET busy_pid = ?, busy_token = ?, busy_until = ? WHERE origin = ?",
                    purpose: "taking a host's turn", bindings: [Int64(processID), token, time + leaseSeconds, host])
                return .granted
            } }
        } catch {
            throw HostStateError.from(error, path: path)
        }
    }

    /// See `HostTurnLedger.release`. Throws `HostStateError`.
    public func release(host: String, token: String, outcome: HostTurnOutcome) throws {
        let cooldown = breakerCooldown.inSeconds
        do throws(LibraryError) {
            try Self.retryingWhenBusy { () throws(LibraryError) in try database.transaction("recording a host's request") { (connection) throws(LibraryError) in
                var row = try Self.row(of: host, connection)
                switch outcome.failed {
                case true?:
                    row.failures += 1
                    if outcome.breakerThreshold > 0, row.failures >= outcome.breakerThreshold {
                        row.breakerUntil = outcome.endedAt.timeIntervalSince1970 + cooldown
                    }
                case false?:
                    row.failures = 0
                case nil:
                    break
                }
                if let until = outcome.retryAfterUntil?.timeIntervalSince1970 {
                    row.retryAfterUntil = max(row.retryAfterUntil ?? 0, until)
                }
                if row.busyToken == token {
                    row.nextRequestAt = max(row.nextRequestAt, outcome.nextRequestAt.timeIntervalSince1970)
                    row.busyPID = nil
                    row.busyToken = nil
                    row.busyUntil = nil
                }
                try connection.run(
                    """
                    UPDATE hosts SET next_request_at = ?, retry_after_until = ?, failures = ?, breaker_until = ?,
                        busy_pid = ?, busy_token = ?, busy_until = ?
                    WHERE origin = ?
                    """, purpose: "recording a host's request",
                    bindings: [row.nextRequestAt, row.retryAfterUntil, row.failures, row.breakerUntil,
                               row.busyPID.map(Int64.init), row.busyToken, row.busyUntil, host])
            } }
        } catch {
            throw HostStateError.from(error, path: path)
        }
    }

    /// See `HostTurnLedger.resetBreaker`. Throws `HostStateError`.
    public func resetBreaker(host: String) throws {
        do throws(LibraryError) {
            _ = try database.transaction("resetting a host's breaker") { (connection) throws(LibraryError) in
                try connection.run(
                    "UPDATE hosts SET failures = 0, breaker_until = NULL WHERE origin = ?",
                    purpose: "resetting a host's breaker", bindings: [host])
            }
        } catch {
            throw HostStateError.from(error, path: path)
        }
    }
}

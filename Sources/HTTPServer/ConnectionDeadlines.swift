import BookRuleLocking
import CMicroHTTPD

/// When each open connection of an `HTTPServer` must have delivered its request by. libmicrohttpd's own
/// timeout counts idleness, so a client that sends a byte now and then keeps a connection (and its thread)
/// for good; this counts the whole request. A timer calls `shutDownOverdue()`, which shuts down the socket of
/// a late connection; libmicrohttpd's thread then sees the end and closes it.
///
/// Why shutting down by descriptor is safe: libmicrohttpd reports a connection closed (`closed(_:)`, which
/// takes the same lock) before it closes the socket, so a descriptor in the table is always the connection's
/// own, never a reused number.
final class ConnectionDeadlines: Sendable {
    private struct Entry: Sendable {
        var socket: Int32
        var deadline: ContinuousClock.Instant?
    }

    /// The time a connection has to deliver one request.
    let seconds: Double
    private let entries = Locked<[Int: Entry]>([:])
    private let clock = ContinuousClock()

    init(seconds: Double) {
        self.seconds = seconds
    }

    /// The table's key for a connection.
    static func key(_ connection: OpaquePointer) -> Int {
        Int(bitPattern: UnsafeRawPointer(connection))
    }

    private var nextDeadline: ContinuousClock.Instant {
        clock.now + .milliseconds(Int64(seconds * 1000))
    }

    /// A connection opened: its first request is due.
    func opened(_ key: Int, socket: Int32) {
        guard socket >= 0 else { return }
        let deadline = nextDeadline
        entries.withLock { $0[key] = Entry(socket: socket, deadline: deadline) }
    }

    /// Its request has arrived whole: no deadline while it is answered.
    func requestRead(_ key: Int) {
        entries.withLock { $0[key]?.deadline = nil }
    }

    /// It was answered: the next request on it is due.
    func answered(_ key: Int) {
        let deadline = nextDeadline
        entries.withLock { $0[key]?.deadline = deadline }
    }

    /// It closed (its socket is about to be).
    func closed(_ key: Int) {
        entries.withLock { $0[key] = nil }
    }

    /// Shuts down every connection past its deadline (once each).
    func shutDownOverdue() {
        let now = clock.now
        entries.withLock { entries in
            for (key, entry) in entries {
                guard let deadline = entry.deadline, deadline <= now else { continue }
                bookrule_socket_shutdown(entry.socket)
                entries[key]?.deadline = nil
            }
        }
    }
}

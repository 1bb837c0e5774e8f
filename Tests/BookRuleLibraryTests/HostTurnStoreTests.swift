import BookRuleLocking
import Foundation
import Testing
@testable import BookRuleLibrary
import BookRuleHTTP
import TestSupport

private let host = "http://127.0.0.1:8080"
private let start = Date(timeIntervalSince1970: 1_800_000_000)

/// A store as process `pid` sees it; `alive` says which processes still run.
private func store(_ path: String, pid: Int32 = 100, alive: Set<Int32> = [100, 200]) throws -> HostTurnStore {
    try HostTurnStore(
        path: path, busyTimeout: .milliseconds(200), lease: .seconds(60), breakerCooldown: .seconds(600),
        pollInterval: .milliseconds(25), processID: pid, isAlive: { alive.contains($0) })
}

/// Whether `claim` says to wait until `offset` seconds after `start` (to a microsecond: Unix time in a Double).
private func waits(_ claim: HostTurnClaim, until offset: Double) -> Bool {
    guard case .wait(let until) = claim else { return false }
    return abs(until.timeIntervalSince(start) - offset) < 1e-5
}

@Suite struct HostTurnStoreTests {
    @Test func theDefaultPathFollowsXDGStateHome() {
        #expect(HostTurnStore.defaultPath(environment: ["XDG_STATE_HOME": "/s/", "HOME": "/h"]) == "/s/bookrule/hosts.sqlite")
        #expect(HostTurnStore.defaultPath(environment: ["XDG_STATE_HOME": "rel", "HOME": "/h"])
                == "/h/.local/state/bookrule/hosts.sqlite")
        #expect(HostTurnStore.defaultPath(environment: ["HOME": "/h/"]) == "/h/.local/state/bookrule/hosts.sqlite")
    }

    @Test func aTurnIsOneProcessAtATimeAndTheGapIsShared() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/a/b/hosts.sqlite"
        let first = try store(path, pid: 100)
        let second = try store(path, pid: 200)
        #expect(try first.claim(host: host, token: "a", serial: true, now: start, retryAfterCap: .seconds(300)) == .granted)
        // While the first holds the turn, the second asks again shortly.
        let busy = try second.claim(host: host, token: "b", serial: true, now: start.addingTimeInterval(0.01),
                                    retryAfterCap: .seconds(300))
        #expect(waits(busy, until: 0.035))
        try first.release(host: host, token: "a", outcome: HostTurnOutcome(
            endedAt: start.addingTimeInterval(0.1), nextRequestAt: start.addingTimeInterval(0.6), retryAfterUntil: nil,
            failed: false, breakerThreshold: 10))
        #expect(waits(try second.claim(host: host, token: "b", serial: true, now: start.addingTimeInterval(0.2),
                                       retryAfterCap: .seconds(300)), until: 0.6))
        #expect(try second.claim(host: host, token: "b", serial: true, now: start.addingTimeInterval(0.6),
                                 retryAfterCap: .seconds(300)) == .granted)
        // Another host is free meanwhile.
        #expect(try first.claim(host: "http://127.0.0.2:8080", token: "c", serial: true, now: start.addingTimeInterval(0.6),
                                retryAfterCap: .seconds(300)) == .granted)
    }

    /// A process that read the time just before another took the turn (it was waiting for the file's lock)
    /// sees the holder's `busy_until` a little more than a lease ahead: that is a turn in use, not a bogus one.
    /// (Taking it over was the race of issue #14: two `bookrule chapter` processes, one gap of a few ms.)
    @Test func aTurnJustTakenIsNotTakenOverByAnOlderClockReading() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/hosts.sqlite"
        #expect(try store(path, pid: 100).claim(host: host, token: "a", serial: true, now: start.addingTimeInterval(0.01),
                                                retryAfterCap: .seconds(300)) == .granted)
        let claim = try store(path, pid: 200).claim(host: host, token: "b", serial: true, now: start,
                                                    retryAfterCap: .seconds(300))
        #expect(waits(claim, until: 0.025))
        // A busy_until further ahead than any run writes (lease + the clock-step allowance) is still bogus.
        #expect(try store(path, pid: 200).claim(host: host, token: "b", serial: true, now: start.addingTimeInterval(-71),
                                                retryAfterCap: .seconds(300)) == .granted)
    }

    /// The clock is read once the store holds the file's lock, so the time compared with the row is never older
    /// than the row.
    @Test func theClockIsReadUnderTheLock() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/hosts.sqlite"
        let state = try store(path)
        let other = try SQLiteDatabase(path: path, busyTimeout: .milliseconds(100))
        try other.execute("BEGIN IMMEDIATE", purpose: "locking")
        let unlocked = Locked<ContinuousClock.Instant?>(nil)
        let unlocker = Thread {
            usleep(80_000)
            unlocked.withLock { $0 = .now }
            try? other.execute("COMMIT", purpose: "unlocking")
        }
        unlocker.start()
        let readAt = Locked<ContinuousClock.Instant?>(nil)
        func clock() -> Date {
            readAt.withLock { $0 = .now }
            return start
        }
        #expect(try state.claim(host: host, token: "a", serial: true, now: clock(), retryAfterCap: .seconds(300)) == .granted)
        let read = try #require(readAt.withLock { $0 })
        let unlock = try #require(unlocked.withLock { $0 })
        #expect(read > unlock)
    }

    @Test func aTurnHeldByAProcessThatDiedIsTakenOverAtOnce() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/hosts.sqlite"
        #expect(try store(path, pid: 300).claim(host: host, token: "gone", serial: true, now: start,
                                                retryAfterCap: .seconds(300)) == .granted)
        #expect(try store(path, pid: 100).claim(host: host, token: "a", serial: true, now: start.addingTimeInterval(1),
                                                retryAfterCap: .seconds(300)) == .granted)
    }

    @Test func aTurnHeldPastTheLeaseIsTakenOver() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/hosts.sqlite"
        #expect(try store(path, pid: 200).claim(host: host, token: "hung", serial: true, now: start,
                                                retryAfterCap: .seconds(300)) == .granted)
        #expect(try store(path, pid: 100).claim(host: host, token: "a", serial: true, now: start.addingTimeInterval(61),
                                                retryAfterCap: .seconds(300)) == .granted)
    }

    @Test func aHostWithAConcurrentRateOnlyChecksPausesAndTheBreaker() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/hosts.sqlite"
        let state = try store(path)
        #expect(try state.claim(host: host, token: "a", serial: false, now: start, retryAfterCap: .seconds(300)) == .granted)
        #expect(try state.claim(host: host, token: "b", serial: false, now: start, retryAfterCap: .seconds(300)) == .granted)
        try state.release(host: host, token: "a", outcome: HostTurnOutcome(
            endedAt: start, nextRequestAt: start.addingTimeInterval(30), retryAfterUntil: start.addingTimeInterval(30),
            failed: true, breakerThreshold: 10))
        #expect(waits(try state.claim(host: host, token: "c", serial: false, now: start.addingTimeInterval(1),
                                      retryAfterCap: .seconds(300)), until: 30))
    }

    @Test func aWaitBeyondTheCapDefersInsteadOfSleeping() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/hosts.sqlite"
        let state = try store(path)
        _ = try state.claim(host: host, token: "a", serial: true, now: start, retryAfterCap: .seconds(300))
        try state.release(host: host, token: "a", outcome: HostTurnOutcome(
            endedAt: start, nextRequestAt: start.addingTimeInterval(3600), retryAfterUntil: start.addingTimeInterval(3600),
            failed: true, breakerThreshold: 10))
        #expect(try store(path).claim(host: host, token: "b", serial: true, now: start.addingTimeInterval(10),
                                      retryAfterCap: .seconds(300)) == .deferred(until: start.addingTimeInterval(3600)))
        #expect(try store(path).claim(host: host, token: "b", serial: true, now: start.addingTimeInterval(3600),
                                      retryAfterCap: .seconds(300)) == .granted)
    }

    @Test func aDamagedFileIsAClearErrorNotACrash() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/hosts.sqlite"
        try Data(repeating: 0x5A, count: 8192).write(to: URL(fileURLWithPath: path))
        #expect {
            _ = try store(path)
        } throws: { error in
            guard case .unreadable? = error as? HostStateError else { return false }
            return "\(error)".contains("pacing within this process only")
        }
    }

    @Test func anUnwritablePlaceIsAClearError() throws {
        let directory = try ScratchDirectory("hoststate")
        let file = directory.path + "/plain-file"
        try Data("x".utf8).write(to: URL(fileURLWithPath: file))
        #expect {
            _ = try store(file + "/bookrule/hosts.sqlite")
        } throws: { error in
            guard case .unavailable? = error as? HostStateError else { return false }
            return true
        }
    }

    @Test func aFileLockedByAnotherProcessFailsWithinTheBusyTimeout() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/hosts.sqlite"
        let state = try store(path)
        let other = try SQLiteDatabase(path: path, busyTimeout: .milliseconds(100))
        try other.execute("BEGIN EXCLUSIVE", purpose: "locking")
        defer { try? other.execute("ROLLBACK", purpose: "unlocking") }
        #expect {
            _ = try state.claim(host: host, token: "a", serial: true, now: start, retryAfterCap: .seconds(300))
        } throws: { error in
            guard case .locked? = error as? HostStateError else { return false }
            return true
        }
    }

    @Test func aFileOfANewerBookruleIsNotTouched() throws {
        let directory = try ScratchDirectory("hoststate")
        let path = directory.path + "/hosts.sqlite"
        let other = try SQLiteDatabase(path: path)
        try other.execute("PRAGMA user_version = 9", purpose: "pretending")
        #expect {
            _ = try store(path)
        } throws: { error in
            guard case .unreadable? = error as? HostStateError else { return false }
            return true
        }
    }
}

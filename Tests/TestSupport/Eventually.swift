/// Waits until `condition` holds, checking every 10 ms, for at most `seconds` (times `TestTime.scale`); throws
/// `TestFailure` naming `what` when it never does. The one way a test waits for another thread or process to
/// get somewhere: it returns as soon as that has happened, however busy the machine, where a fixed sleep
/// either wastes time or, on shared cores, is too short.
package func eventually(
    _ what: String = "the condition", seconds: Double = 20, _ condition: () async throws -> Bool
) async throws {
    let limit = TestTime.seconds(seconds)
    let deadline = ContinuousClock.now + .milliseconds(Int(limit * 1000))
    while !(try await condition()) {
        if ContinuousClock.now > deadline { throw TestFailure("\(what) did not happen within \(limit) s") }
        try await Task.sleep(for: .milliseconds(10))
    }
}

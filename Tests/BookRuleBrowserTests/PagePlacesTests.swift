@testable import BookRuleBrowser
import Testing
import TestSupport

@Suite("The browser's page places: handed out in order, never lost to a cancelled waiter", .timeLimit(.minutes(1 * TestTime.scale)))
struct PagePlacesTests {
    @Test("A waiter cancelled while it waits throws at once, and the place it never got stays free for the next page")
    func cancelledWaiterKeepsNoPlace() async throws {
        let places = PagePlaces(count: 1)
        try await places.acquire()
        let waiter = Task { try await places.acquire() }
        // The waiter is queued once a release would hand it the place; cancel it before that.
        try await Task.sleep(for: .milliseconds(50))
        waiter.cancel()
        await #expect(throws: CancellationError.self) { try await waiter.value }
        await places.release()
        // One place, free again: taken at once, then a second acquire waits (the count did not grow either).
        try await places.acquire()
        let second = Task { try await places.acquire() }
        try await Task.sleep(for: .milliseconds(50))
        second.cancel()
        await #expect(throws: CancellationError.self) { try await second.value }
    }

    @Test("A released place goes to the first waiter")
    func releaseWakesTheFirstWaiter() async throws {
        let places = PagePlaces(count: 1)
        try await places.acquire()
        let waiter = Task { try await places.acquire() }
        try await Task.sleep(for: .milliseconds(50))
        await places.release()
        try await waiter.value
    }
}

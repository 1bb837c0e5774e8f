import Dispatch
import Foundation
import Testing
@testable import BookRuleServe

@Suite("What a stopping server waits for: woken by the last piece of work ending, not by looking again")
struct WorkInFlightTests {
    @Test("idle at once with nothing running; not idle by the deadline while work runs; woken when the last piece ends")
    func waitsForTheLastPiece() {
        let work = WorkInFlight()
        #expect(work.waitUntilIdle(deadline: .now()))
        work.begin()
        work.begin()
        #expect(work.running == 2)
        #expect(!work.waitUntilIdle(deadline: .now()))
        let firstEnded = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        Thread.detachNewThread {
            work.end()
            firstEnded.signal()
            release.wait()
            work.end()
        }
        firstEnded.wait()
        // One piece still runs: a wait that ends now is not idle, however long the first took.
        #expect(!work.waitUntilIdle(deadline: .now()))
        release.signal()
        // The far deadline only catches a hang: the wait returns when the second piece ends.
        #expect(work.waitUntilIdle(deadline: .now() + 60))
        #expect(work.running == 0)
    }
}

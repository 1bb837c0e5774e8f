import Foundation
import Testing
import BookRuleLocking

@Suite("Locked")
struct LockedTests {
    @Test("increments from four threads at once are all kept")
    func concurrentIncrements() {
        let counter = Locked(0)
        let group = DispatchGroup()
        for _ in 0..<4 {
            DispatchQueue.global().async(group: group) {
                for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
            }
        }
        group.wait()
        #expect(counter.withLock { $0 } == 40_000)
    }

    private struct Refused: Error, Equatable {}

    @Test("a typed error thrown inside leaves the lock free and the change made before it kept")
    func throwingBody() {
        let value = Locked([1])
        #expect(throws: Refused.self) {
            try value.withLock { (numbers) throws(Refused) in
                numbers.append(2)
                throw Refused()
            }
        }
        // Taking the lock again would deadlock if the throw had kept it.
        #expect(value.withLock { $0 } == [1, 2])
    }
}

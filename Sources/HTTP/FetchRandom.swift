import BookRuleLocking

/// The one random generator behind a fetcher's jitter, backoff and first User-Agent choices, shared by its
/// seams so that a seeded generator replays a whole run.
final class FetchRandom: Sendable {
    private let generator: Locked<any RandomNumberGenerator & Sendable>

    init(_ generator: any RandomNumberGenerator & Sendable) {
        self.generator = Locked(generator)
    }

    /// The next 64 random bits.
    func next() -> UInt64 {
        generator.withLock { $0.next() }
    }

    /// A uniform number in [0, 1].
    func unit() -> Double {
        Double(next() >> 11) / Double(UInt64(1) << 53 - 1)
    }
}

import BookRuleLocking


/// Lets exactly one of several racing tasks deliver a result.
final class FirstAnswer: Sendable {
    private let taken = Locked(false)

    /// Whether someone has claimed it.
    var isClaimed: Bool { taken.withLock { $0 } }

    /// True for the first caller only.
    func claim() -> Bool {
        taken.withLock { taken in
            defer { taken = true }
            return !taken
        }
    }
}

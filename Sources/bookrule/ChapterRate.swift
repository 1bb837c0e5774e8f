/// The pace of a book download, for its rate and ETA: seconds per chapter, smoothed over the intervals
/// between saved chapters. Waits (a `Retry-After`, a backoff) are part of those intervals, since the rest of
/// the book will meet them too; a wait still going on counts as far as it has got, so the estimate moves while
/// it happens instead of jumping when it ends.
struct ChapterRate {
    /// How much one interval moves the estimate (an exponential moving average).
    static let weight = 0.1

    private var secondsPerChapter: Double?
    /// When the last chapter was saved (or the run started), in seconds.
    private var last: Double?

    /// The run's chapter fetching starts at `time`.
    mutating func start(at time: Double) {
        last = time
        secondsPerChapter = nil
    }

    /// A chapter was saved at `time`.
    mutating func chapterSaved(at time: Double) {
        guard let last else {
            self.last = time
            return
        }
        secondsPerChapter = Self.smoothed(secondsPerChapter, with: max(0, time - last))
        self.last = time
    }

    /// Seconds per chapter at `time`, counting the interval in progress once it is longer than the estimate;
    /// nil before the first chapter.
    func secondsPerChapter(at time: Double) -> Double? {
        guard let estimate = secondsPerChapter, let last else { return nil }
        let running = time - last
        return running > estimate ? Self.smoothed(estimate, with: running) : estimate
    }

    /// Seconds until `remaining` more chapters are saved, at `time`; nil while nothing is known.
    func eta(remaining: Int, at time: Double) -> Double? {
        secondsPerChapter(at: time).map { Double(remaining) * $0 }
    }

    private static func smoothed(_ estimate: Double?, with interval: Double) -> Double {
        guard let estimate else { return interval }
        return estimate + weight * (interval - estimate)
    }
}

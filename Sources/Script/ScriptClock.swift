/// The time and randomness scripts see.
public enum ScriptClock: Sendable, Equatable {
    /// The real clock and real randomness.
    case system
    /// A fixed instant (milliseconds since 1970 UTC) and a seed: `Date`, `Date.now()`, `new Date()`,
    /// `java.timeFormat` of "now", `Math.random()` and `java.randomUUID()` give the same values in every
    /// evaluation (`bookrule test` replays). Each read of the clock advances it by one millisecond, so a
    /// script waiting for time to pass still ends; the clock and the random sequence restart with every
    /// evaluation. `java.timeFormat` then formats in UTC+8 (China, where the sites are) rather than the
    /// machine's zone.
    case fixed(epochMilliseconds: Int64, seed: UInt64)
}

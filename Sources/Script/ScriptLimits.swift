/// The bounds every evaluation of a source's JavaScript runs under.
public struct ScriptLimits: Sendable, Equatable {
    /// CPU time one evaluation may use, helpers it calls included (JavaScriptCore measures the thread's CPU
    /// time; waiting for the network is not counted). Default 2 s.
    public var timeLimit: Duration
    /// Bytes of JavaScript heap (objects plus string contents) above which an evaluation is stopped.
    /// Checked every 10 ms of CPU time, so a script may overshoot by what it allocates in that time.
    /// Default 256 MiB.
    public var heapLimit: Int
    /// How deeply evaluations may nest (JavaScript calling `java.getString` on a rule with JavaScript…).
    /// Default 10, as Legado.
    public var maxNesting: Int

    /// Creates limits.
    public init(timeLimit: Duration = .seconds(2), heapLimit: Int = 256 << 20, maxNesting: Int = 10) {
        self.timeLimit = timeLimit
        self.heapLimit = heapLimit
        self.maxNesting = maxNesting
    }
}

/// A source's `concurrentRate`: its own pacing for its host, replacing the fetcher's default delay.
///
/// Written as `"N"` (one request at a time, starts at least N milliseconds apart) or `"a/b"` (at most `a`
/// requests started in any `b` milliseconds, up to `a` of them in flight at once). Backoff after failures still
/// applies on top of either.
public enum ConcurrentRate: Sendable, Hashable, CustomStringConvertible {
    /// One request at a time; each starts at least this long after the previous one started.
    case interval(Duration)
    /// At most `requests` starts in any window of length `per`.
    case window(requests: Int, per: Duration)

    /// Parses a `concurrentRate` value. Surrounding spaces are ignored. An empty value or `"0"` means "no
    /// rate of its own" and gives nil (the fetcher's default pacing applies, which is polite already).
    /// Anything else that is not `N` or `a/b` with whole positive numbers throws.
    public static func parse(_ text: String) throws(ConcurrentRateError) -> ConcurrentRate? {
        let trimmed = text.trimmingASCIIWhitespace()
        if trimmed.isEmpty || trimmed == "0" { return nil }
        let parts = trimmed.split(separator: "/", omittingEmptySubsequences: false)
        switch parts.count {
        case 1:
            guard let milliseconds = wholeNumber(parts[0]) else { throw .notANumber(text) }
            return .interval(.milliseconds(milliseconds))
        case 2:
            guard let requests = wholeNumber(parts[0]), let milliseconds = wholeNumber(parts[1]) else {
                throw .notANumber(text)
            }
            guard requests > 0 else { throw .zeroRequests(text) }
            guard milliseconds > 0 else { throw .zeroWindow(text) }
            return .window(requests: requests, per: .milliseconds(milliseconds))
        default:
            throw .tooManySlashes(text)
        }
    }

    /// The rate as it would be written in a source: `"300"` or `"2/1000"`.
    public var description: String {
        switch self {
        case .interval(let interval):
            return "\(Self.milliseconds(interval))"
        case .window(let requests, let window):
            return "\(requests)/\(Self.milliseconds(window))"
        }
    }

    /// At most 9 digits (over 11 days in milliseconds), so nothing overflows.
    private static func wholeNumber(_ text: Substring) -> Int? {
        let digits = String(text).trimmingASCIIWhitespace()
        guard !digits.isEmpty, digits.utf8.count <= 9, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else {
            return nil
        }
        return Int(digits)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000 + duration.components.attoseconds / 1_000_000_000_000_000
    }
}

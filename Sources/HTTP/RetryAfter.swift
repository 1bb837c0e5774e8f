import Foundation

/// Reads a `Retry-After` header value (RFC 9110 section 10.2.3): delta-seconds, or an HTTP-date in any of its
/// three forms (IMF-fixdate, the obsolete RFC 850 form and asctime).
///
/// This type holds the strict RFC 9110 grammar (only those three forms, GMT only, real calendar days, the
/// 50-year rule for two-digit years); turning the checked fields into an instant is `DateCodec`'s
/// (`curl_getdate`), which alone would also accept `PST` or `31 Apr`.
public enum RetryAfter {
    /// How long `value` asks the client to wait, seen at the wall-clock date `now`; a date in the past counts as
    /// zero. Nil when `value` is neither delta-seconds nor an HTTP-date (the caller then falls back to its own
    /// backoff).
    public static func delay(_ value: String, now: Date) -> Duration? {
        let text = value.trimmingASCIIWhitespace()
        if let seconds = deltaSeconds(text) {
            return .seconds(seconds)
        }
        guard let date = date(text, now: now) else { return nil }
        let interval = date.timeIntervalSince(now)
        return interval > 0 ? .seconds(interval) : .zero
    }

    /// The date an HTTP-date names: `Sun, 06 Nov 1994 08:49:37 GMT`, `Sunday, 06-Nov-94 08:49:37 GMT` or
    /// `Sun Nov  6 08:49:37 1994`. Names of days and months are matched case-insensitively. `now` resolves the
    /// two-digit year of the RFC 850 form (a year more than 50 years ahead is taken from the previous century).
    /// Nil for anything else, including impossible dates such as 31 April.
    public static func date(_ text: String, now: Date) -> Date? {
        let text = text.trimmingASCIIWhitespace()
        if let comma = text.firstIndex(of: ",") {
            guard dayNames.contains(text[..<comma].lowercased()) else { return nil }
            let rest = text[text.index(after: comma)...].split(separator: " ", omittingEmptySubsequences: true)
            if rest.count == 5 {
                // IMF-fixdate: 06 Nov 1994 08:49:37 GMT
                guard isGMT(rest[4]), rest[2].count == 4, let year = number(rest[2]) else { return nil }
                return makeDate(year: year, month: rest[1], day: rest[0], time: rest[3])
            }
            if rest.count == 3 {
                // RFC 850: 06-Nov-94 08:49:37 GMT
                let parts = rest[0].split(separator: "-", omittingEmptySubsequences: false)
                guard parts.count == 3, isGMT(rest[2]), let written = number(parts[2]) else { return nil }
                let year: Int
                switch parts[2].count {
                case 2: year = fullYear(twoDigits: written, now: now)
                case 4: year = written
                default: return nil
                }
                return makeDate(year: year, month: parts[1], day: parts[0], time: rest[1])
            }
            return nil
        }
        // asctime: Sun Nov  6 08:49:37 1994
        let words = text.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 5, dayNames.contains(words[0].lowercased()), words[4].count == 4,
              let year = number(words[4])
        else { return nil }
        return makeDate(year: year, month: words[1], day: words[2], time: words[3])
    }

    // MARK: - Parsing helpers

    private static let dayNames: Set<String> = [
        "mon", "tue", "wed", "thu", "fri", "sat", "sun",
        "monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday",
    ]

    private static let monthNames = [
        "jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec",
    ]

    /// Whole seconds from a string of ASCII digits, saturating instead of overflowing; nil for anything else.
    private static func deltaSeconds(_ text: String) -> Int64? {
        guard !text.isEmpty else { return nil }
        var value: Int64 = 0
        for byte in text.utf8 {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            let (times, overflow1) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(Int64(byte - 0x30))
            value = overflow1 || overflow2 ? Int64.max : sum
        }
        // A server may send any number; ten years is "never" for a download and keeps date arithmetic safe.
        return min(value, 315_360_000)
    }

    /// A non-negative decimal number of at most 4 ASCII digits.
    private static func number(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.utf8.count <= 4 else { return nil }
        var value = 0
        for byte in text.utf8 {
            guard byte >= 0x30 && byte <= 0x39 else { return nil }
            value = value * 10 + Int(byte - 0x30)
        }
        return value
    }

    private static func isGMT(_ text: Substring) -> Bool {
        let upper = text.uppercased()
        return upper == "GMT" || upper == "UTC"
    }

    private static func fullYear(twoDigits: Int, now: Date) -> Int {
        let currentYear = DateCodec.utcYear(of: now)
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 } else if year <= currentYear - 50 { year += 100 }
        return year
    }

    /// The instant of checked fields, through `DateCodec` on the IMF-fixdate they spell; nil for a day the
    /// month does not have or a time out of range.
    private static func makeDate(year: Int, month monthText: Substring, day dayText: Substring, time: Substring)
        -> Date?
    {
        guard let monthIndex = monthNames.firstIndex(of: monthText.lowercased()),
              dayText.count <= 2, let day = number(dayText)
        else { return nil }
        let month = monthIndex + 1
        guard year >= 1, year <= 9999, day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        var yearText = String(year)
        while yearText.count < 4 { yearText = "0" + yearText }
        // The weekday is not checked against the date (RFC 9110 lets a recipient ignore it); curl ignores it too.
        return DateCodec.httpDate("Mon, \(dayText.count == 1 ? "0" : "")\(dayText) \(monthNames[monthIndex]) \(yearText) \(time) GMT")
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2:
            let leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0
            return leap ? 29 : 28
        case 4, 6, 9, 11:
            return 30
        default:
            return 31
        }
    }
}

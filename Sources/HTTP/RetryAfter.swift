import Foundation

/// Reads a `Retry-After` header value (RFC 9110 section 10.2.3): delta-seconds, or an HTTP-date in any of its
/// three forms (IMF-fixdate, the obsolete RFC 850 form and asctime).
///
/// Dates are parsed by hand, in ASCII and UTC, so the result never depends on the process locale or time zone
/// (a locale-dependent `DateFormatter` reads month names in the user's language and breaks on other systems).
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

    // MARK: - Formatting (for messages and tests)

    /// `date` as an IMF-fixdate, e.g. `Thu, 05 Nov 2026 12:00:00 GMT`.
    static func imfFixdate(_ date: Date) -> String {
        let parts = utcParts(date)
        let weekday = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"][parts.weekday]
        let month = monthNames[parts.month - 1].capitalized
        return "\(weekday), \(pad(parts.day)) \(month) \(parts.year) \(pad(parts.hour)):\(pad(parts.minute)):"
            + "\(pad(parts.second)) GMT"
    }

    /// `date` as `2026-11-05 12:00:00 UTC`, for messages a user reads.
    static func utcTimestamp(_ date: Date) -> String {
        let parts = utcParts(date)
        return "\(parts.year)-\(pad(parts.month))-\(pad(parts.day)) \(pad(parts.hour)):\(pad(parts.minute)):"
            + "\(pad(parts.second)) UTC"
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
        let currentYear = utcParts(now).year
        var year = currentYear - currentYear % 100 + twoDigits
        if year > currentYear + 50 { year -= 100 } else if year <= currentYear - 50 { year += 100 }
        return year
    }

    private static func makeDate(year: Int, month monthText: Substring, day dayText: Substring, time: Substring)
        -> Date?
    {
        guard let monthIndex = monthNames.firstIndex(of: monthText.lowercased()),
              dayText.count <= 2, let day = number(dayText)
        else { return nil }
        let month = monthIndex + 1
        guard year >= 1, day >= 1, day <= daysIn(month: month, year: year) else { return nil }
        let clock = time.split(separator: ":", omittingEmptySubsequences: false)
        guard clock.count == 3, clock.allSatisfy({ $0.count == 2 }),
              let hour = number(clock[0]), let minute = number(clock[1]), let second = number(clock[2]),
              hour < 24, minute < 60, second <= 60
        else { return nil }
        let days = daysFromCivil(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        return Date(timeIntervalSince1970: TimeInterval(seconds))
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

    /// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
    private static func daysFromCivil(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let shiftedMonth = (month + 9) % 12
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private struct UTCParts {
        var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, weekday: Int
    }

    private static func utcParts(_ date: Date) -> UTCParts {
        // Clamped to years 0001–9999 so a hostile date can't overflow the arithmetic below.
        let total = Int(min(max(date.timeIntervalSince1970, -62_135_596_800), 253_402_300_799).rounded(.down))
        var days = total / 86_400
        var secondOfDay = total % 86_400
        if secondOfDay < 0 {
            secondOfDay += 86_400
            days -= 1
        }
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        let weekday = ((days % 7) + 11) % 7  // 1970-01-01 was a Thursday (4)
        return UTCParts(
            year: year, month: month, day: day, hour: secondOfDay / 3_600, minute: secondOfDay % 3_600 / 60,
            second: secondOfDay % 60, weekday: weekday)
    }

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

import CCurl
import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The project's one reader and writer of dates as text: HTTP dates (`Retry-After`, cookie `Expires`,
/// `Last-Modified`), HAR's ISO 8601 timestamps and the UTC times messages show.
///
/// HTTP dates are read by libcurl's `curl_getdate`, which curl itself uses for cookies: thread-safe, no global
/// init, UTC unless a zone is given, and lenient in the ways real servers need (a missing zone, `+0800`,
/// `06 Nov 1994`) while refusing out-of-range fields. Beware zone abbreviations: `CST` is US Central (UTC−6),
/// never China Standard Time. Strict `Retry-After` grammar is `RetryAfter`'s job, on top of this.
///
/// Everything is written by hand from `gmtime_r`, in English and UTC, so no output depends on the process
/// locale or time zone (a `DateFormatter` writes month names in the user's language).
public enum DateCodec {
    /// The instant an HTTP date names (IMF-fixdate, RFC 850, asctime, and the variants curl accepts), or nil.
    /// `curl_getdate` signals failure with -1, which is also the instant 1969-12-31 23:59:59 UTC; that one
    /// second is treated as failure, harmless for HTTP.
    public static func httpDate(_ text: String) -> Date? {
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        guard !trimmed.isEmpty, !trimmed.utf8.contains(0) else { return nil }
        let seconds = curl_getdate(trimmed, nil)
        guard seconds != -1 else { return nil }
        return Date(timeIntervalSince1970: TimeInterval(seconds))
    }

    /// `date` as IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT` (the fraction of a second dropped).
    public static func imfFixdate(_ date: Date) -> String {
        let parts = utcParts(date)
        return "\(weekdays[parts.weekday]), \(pad(parts.day)) \(months[parts.month - 1]) \(parts.year) "
            + "\(pad(parts.hour)):\(pad(parts.minute)):\(pad(parts.second)) GMT"
    }

    /// `date` as ISO 8601 in UTC with milliseconds, as HAR files write `startedDateTime`:
    /// `2024-05-01T12:00:00.123Z`.
    public static func iso8601(_ date: Date) -> String {
        let parts = utcParts(date)
        var milliseconds = String(parts.millisecond)
        while milliseconds.count < 3 { milliseconds = "0" + milliseconds }
        return "\(parts.year)-\(pad(parts.month))-\(pad(parts.day))T\(pad(parts.hour)):\(pad(parts.minute)):"
            + "\(pad(parts.second)).\(milliseconds)Z"
    }

    /// The instant an ISO 8601 timestamp with a time zone names, with or without a fraction of a second
    /// (`2024-05-01T12:00:00Z`, `2024-05-01T20:00:00.5+08:00`); nil for anything else.
    public static func iso8601Date(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }

    /// `date` as `2026-11-05 12:00:00 UTC`, for messages a user reads.
    public static func utcTimestamp(_ date: Date) -> String {
        let parts = utcParts(date)
        return "\(parts.year)-\(pad(parts.month))-\(pad(parts.day)) \(pad(parts.hour)):\(pad(parts.minute)):"
            + "\(pad(parts.second)) UTC"
    }

    /// The year of `date` in UTC.
    package static func utcYear(of date: Date) -> Int {
        utcParts(date).year
    }

    private static let weekdays = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    private struct Parts {
        var year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int, millisecond: Int, weekday: Int
    }

    /// The calendar fields of `date` in UTC; dates `gmtime_r` cannot represent read as the epoch.
    private static func utcParts(_ date: Date) -> Parts {
        let interval = date.timeIntervalSince1970
        let whole = interval.isFinite ? interval.rounded(.down) : 0
        let clamped = min(max(whole, -62_135_596_800), 253_402_300_799)  // years 1 to 9999
        var seconds = time_t(clamped)
        var fields = tm()
        guard gmtime_r(&seconds, &fields) != nil else {
            return Parts(year: 1970, month: 1, day: 1, hour: 0, minute: 0, second: 0, millisecond: 0, weekday: 4)
        }
        let millisecond = interval.isFinite && whole == clamped ? min(999, Int((interval - whole) * 1000)) : 0
        return Parts(
            year: Int(fields.tm_year) + 1900, month: Int(fields.tm_mon) + 1, day: Int(fields.tm_mday),
            hour: Int(fields.tm_hour), minute: Int(fields.tm_min), second: Int(fields.tm_sec),
            millisecond: millisecond, weekday: Int(fields.tm_wday) % 7)
    }

    private static func pad(_ value: Int) -> String {
        value < 10 ? "0\(value)" : "\(value)"
    }
}

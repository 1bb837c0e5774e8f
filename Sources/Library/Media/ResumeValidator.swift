import Foundation
import BookRuleHTTP

/// Decides whether a partial download may be continued, and with which `If-Range` value (RFC 9110 §13.1.5).
///
/// Only a strong validator may go in `If-Range`: an entity tag without the `W/` prefix, or a `Last-Modified`
/// date that is strong because it is at least 60 seconds older than the `Date` of the response that carried it
/// (RFC 9110 §8.8.2.2). Without one, a partial file cannot be continued safely (the server could splice two
/// versions), so the download restarts from byte 0.
public enum ResumeValidator {
    /// The `If-Range` value for a partial file whose first response carried these fields, or nil when none of
    /// them is strong. A strong ETag wins over a date.
    public static func ifRange(etag: String?, lastModified: String?, responseDate: String?) -> String? {
        if let etag = etag?.trimmingASCIIWhitespace(), isStrongETag(etag) { return etag }
        if let lastModified, let responseDate, isStrongDate(lastModified: lastModified, responseDate: responseDate) {
            return lastModified.trimmingASCIIWhitespace()
        }
        return nil
    }

    /// Whether `etag` is a strong entity tag: `"…"` with no `W/` prefix.
    public static func isStrongETag(_ etag: String) -> Bool {
        let text = etag.trimmingASCIIWhitespace()
        return text.count >= 2 && text.hasPrefix("\"") && text.hasSuffix("\"")
    }

    /// Whether a `Last-Modified` date is strong: both dates parse and it is at least 60 s before `responseDate`.
    public static func isStrongDate(lastModified: String, responseDate: String) -> Bool {
        guard let modified = RetryAfter.date(lastModified, now: Date()),
              let date = RetryAfter.date(responseDate, now: Date()) else { return false }
        return date.timeIntervalSince(modified) >= 60
    }
}

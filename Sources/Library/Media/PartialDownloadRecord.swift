import Foundation
import BookRuleJSON

/// The sidecar `NAME.part.json` beside a partial download `NAME.part`: what is needed to continue it safely.
///
/// It is replaced atomically (temp file, fsync, rename) and only after the `.part` data up to `committedBytes`
/// has been flushed to disk, so after a crash the recorded resume point never exceeds durable data.
public struct PartialDownloadRecord: Sendable, Hashable, Codable {
    /// The format version; a sidecar of another version is ignored (the download restarts).
    public var version: Int
    /// The URL the data came from; a sidecar for another URL is ignored.
    public var url: String
    /// The `ETag` of the first response, if any.
    public var etag: String?
    /// The `Last-Modified` of the first response, if any.
    public var lastModified: String?
    /// The `Date` of the first response, if any (decides whether `lastModified` is a strong validator).
    public var responseDate: String?
    /// The complete length, when the server said it.
    public var totalBytes: Int64?
    /// Bytes of `NAME.part` known to be on disk.
    public var committedBytes: Int64
    /// False when the server answered `Accept-Ranges: none`: then no `Range` is ever sent.
    public var acceptsRanges: Bool

    /// The version this build writes.
    public static let currentVersion = 1

    /// Creates a record.
    public init(
        url: String, etag: String?, lastModified: String?, responseDate: String?, totalBytes: Int64?,
        committedBytes: Int64, acceptsRanges: Bool
    ) {
        self.version = Self.currentVersion
        self.url = url
        self.etag = etag
        self.lastModified = lastModified
        self.responseDate = responseDate
        self.totalBytes = totalBytes
        self.committedBytes = committedBytes
        self.acceptsRanges = acceptsRanges
    }

    /// The `If-Range` value a resume may send, or nil when no strong validator was given.
    public var ifRange: String? {
        ResumeValidator.ifRange(etag: etag, lastModified: lastModified, responseDate: responseDate)
    }

    /// The record as pretty JSON.
    public func encoded() throws -> [UInt8] {
        try JSONWriter.bytes(self, style: .pretty)
    }

    /// A record read from `bytes`; throws when they are not a valid record.
    public static func decode(_ bytes: [UInt8]) throws -> PartialDownloadRecord {
        try JSONDecoder().decode(PartialDownloadRecord.self, from: Data(bytes))
    }
}

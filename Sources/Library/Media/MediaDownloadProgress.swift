/// How far a download has got.
public struct MediaDownloadProgress: Sendable, Hashable {
    /// Bytes of the file on disk (earlier runs included).
    public var receivedBytes: Int64
    /// The file's complete length, when known.
    public var totalBytes: Int64?
    /// Bytes per second received by the current attempt so far.
    public var bytesPerSecond: Double

    /// Creates a progress value.
    public init(receivedBytes: Int64, totalBytes: Int64?, bytesPerSecond: Double) {
        self.receivedBytes = receivedBytes
        self.totalBytes = totalBytes
        self.bytesPerSecond = bytesPerSecond
    }

    /// `receivedBytes / totalBytes` in [0, 1], when the total is known and not zero.
    public var fraction: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, max(0, Double(receivedBytes) / Double(totalBytes)))
    }
}

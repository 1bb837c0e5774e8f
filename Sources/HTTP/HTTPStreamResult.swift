/// How a streamed transfer ended without an error: the final response's head, how much body the sink was
/// given, and whether the sink stopped it early.
public struct HTTPStreamResult: Sendable, Hashable {
    /// The final response's status and headers (status 0 and no headers if the sink was never called).
    public var head: HTTPResponseHead
    /// Body bytes handed to the sink.
    public var bodyBytes: Int
    /// True when the sink returned false: the transfer was stopped on purpose, not by a failure.
    public var stoppedBySink: Bool

    /// Creates a result.
    public init(head: HTTPResponseHead, bodyBytes: Int, stoppedBySink: Bool) {
        self.head = head
        self.bodyBytes = bodyBytes
        self.stoppedBySink = stoppedBySink
    }
}

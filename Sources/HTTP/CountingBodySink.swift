import BookRuleLocking

/// Passes a streamed response on to another sink and counts what arrived, so a transfer that drops mid-body
/// is still reported with its status and the bytes that came before the drop.
final class CountingBodySink: HTTPBodySink {
    private let sink: any HTTPBodySink
    private let counts = Locked<(status: Int?, bytes: Int)>((nil, 0))

    init(_ sink: any HTTPBodySink) {
        self.sink = sink
    }

    /// The status of the head received (nil before it) and the body bytes the sink accepted.
    var received: (status: Int?, bytes: Int) { counts.withLock { $0 } }

    func receiveHead(_ head: HTTPResponseHead) -> Bool {
        counts.withLock { $0.status = head.status }
        return sink.receiveHead(head)
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let accepted = sink.receiveBody(bytes)
        if accepted { counts.withLock { $0.bytes += bytes.count } }
        return accepted
    }
}

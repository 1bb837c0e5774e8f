/// Where a streamed response goes: the head first, then the body in pieces as they arrive, so a large file is
/// never held whole in memory.
///
/// A transport calls the methods one at a time, in order, from whatever thread runs the transfer (a libcurl
/// transfer thread for `CurlTransport`); they must not block for long. Returning false from either one stops
/// the transfer at once; `HTTPTransport.stream(_:to:)` then returns normally with `stoppedBySink` set, so the
/// caller can tell its own stop from a network failure (which throws).
public protocol HTTPBodySink: Sendable {
    /// Receives the final response's status and headers (after redirects), before any body byte; false stops.
    func receiveHead(_ head: HTTPResponseHead) -> Bool
    /// Receives the next piece of the body (after any content-encoding is undone); false stops.
    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool
}

import BookRuleLocking
import Foundation

/// Passes requests to another transport and keeps every exchange as a HAR entry, so a live run becomes a
/// fixture that `HARReplayTransport` answers from later (`--record`). A request's `secrets` (a login's
/// credentials and headers) are written as `REDACTED`, in the request and in its response.
public final class RecordingTransport: HTTPTransport {
    private let upstream: any HTTPTransport
    private let state: Locked<HARRecording>

    /// Records what `upstream` answers, appending to `recording` (an existing file's entries are kept).
    public init(upstream: any HTTPTransport, appendingTo recording: HARRecording = HARRecording()) {
        self.upstream = upstream
        self.state = Locked(recording)
    }

    /// Sends through the upstream transport and records the exchange. Failures without a response are not
    /// recorded (a replay of them would prove nothing).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let started = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await upstream.send(request)
        let duration = clock.now - start
        let redaction = SecretRedaction(request.secrets)
        let (recordedRequest, recordedResponse) = redaction.isEmpty ? (request, response)
            : (redaction.request(request), redaction.response(response))
        state.withLock { $0.append(request: recordedRequest, response: recordedResponse, startedAt: started, duration: duration) }
        return response
    }

    /// Everything recorded so far, including the entries it started with.
    public var recording: HARRecording {
        state.withLock { $0 }
    }
}

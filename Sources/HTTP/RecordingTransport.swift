import BookRuleLocking
import Foundation

/// Passes requests to another transport and keeps every exchange as a HAR entry, so a live run becomes a
/// fixture that `HARReplayTransport` answers from later (`--record`). A request's `secrets` (a login's
/// credentials and headers) are written as `REDACTED`, in every exchange, when the recording is read.
public final class RecordingTransport: HTTPTransport {
    private let upstream: any HTTPTransport
    private let start: HARRecording
    private let state = Locked<(exchanges: [Exchange], secrets: Set<SecretSet>)>(([], []))

    /// One exchange as it happened; turned into HAR entries (redacted) when the recording is read.
    private struct Exchange: Sendable {
        let request: HTTPRequest
        let response: HTTPResponse
        let started: Date
        let duration: Duration
    }

    /// Records what `upstream` answers, appending to `recording` (an existing file's entries are kept).
    public init(upstream: any HTTPTransport, appendingTo recording: HARRecording = HARRecording()) {
        self.upstream = upstream
        start = recording
    }

    /// Sends through the upstream transport and records the exchange. Failures without a response are not
    /// recorded (a replay of them would prove nothing).
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        let started = Date()
        let clock = ContinuousClock()
        let start = clock.now
        let response = try await upstream.send(request)
        let duration = clock.now - start
        state.withLock { state in
            state.exchanges.append(Exchange(request: request, response: response, started: started, duration: duration))
            if let secrets = request.secrets { state.secrets.insert(secrets) }
        }
        return response
    }

    /// Everything recorded so far, including the entries it started with; every secret the recorded requests
    /// carried (as they stand now) written as `REDACTED`.
    public var recording: HARRecording {
        let (exchanges, secrets) = state.withLock { ($0.exchanges, $0.secrets) }
        let redaction = SecretRedaction(secrets.flatMap(\.values), formValues: secrets.flatMap(\.formValues))
        var recording = start
        for exchange in exchanges {
            let request = redaction.isEmpty ? exchange.request : redaction.request(exchange.request)
            let response = redaction.isEmpty ? exchange.response : redaction.response(exchange.response)
            recording.append(request: request, response: response, startedAt: exchange.started, duration: exchange.duration)
        }
        return recording
    }
}

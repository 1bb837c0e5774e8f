import Foundation
import Testing
import BookRuleCheck
import BookRuleEngine
import BookRuleHTTP
import BookRuleLibrary

@Suite("FailureCause reads the cause out of an error tree once, for every report that sorts failures")
struct FailureCauseTests {
    @Test("engine, transport, fetcher, replay and script errors each give their cause")
    func causes() {
        let cases: [(any Error, FailureCause)] = [
            (EngineError.httpStatus(url: "u", status: 404), .httpStatus(404)),
            (EngineError.httpStatus(url: "u", status: 403), .refused(status: 403)),
            (EngineError.transport(url: "u", error: HTTPTransportError.timedOut(url: "u", seconds: 1)), .timedOut),
            (EngineError.transport(url: "u", error: HTTPTransportError.nameNotResolved(url: "u", host: "x.test")), .unreachable),
            (EngineError.transport(url: "u", error: HTTPTransportError.redirectLoop(url: "u", loop: ["u"])), .redirects),
            (EngineError.transport(url: "u", error: HTTPTransportError.bodyTooLarge(url: "u", limit: 1)), .bodyTooLarge),
            (EngineError.transport(url: "u", error: FetchError.breakerOpen(host: "h", failures: 5)), .breakerOpen),
            (EngineError.transport(url: "u", error: FetchError.hostDeferred(host: "h", until: Date(), retryAfter: .seconds(3600))), .hostDeferred),
            (FetchError.gaveUp(url: "u", attempts: 3, lastStatus: 429, lastError: nil), .refused(status: 429)),
            (FetchError.gaveUp(url: "u", attempts: 3, lastStatus: 502, lastError: nil), .httpStatus(502)),
            (FetchError.gaveUp(url: "u", attempts: 3, lastStatus: nil, lastError: "u timed out after 30 s"), .timedOut),
            (FetchError.gaveUp(url: "u", attempts: 3, lastStatus: nil, lastError: "connection refused"), .unreachable),
            (EngineError.transport(url: "u", error: HARReplayError.notRecorded(method: "GET", url: "u", body: nil)), .notRecorded),
            (EngineError.transport(url: "u", error: SavedPageError.notSaved(method: "GET", url: "u", body: nil, saved: [])), .notRecorded),
            (EngineError.missingRule(field: "ruleToc.chapterList"), .unusableRules),
            (EngineError.fieldEmptyEverywhere(field: "chapterName", list: "//a", elements: 3, cause: nil), .ruleFailed),
            (EngineError.invalidURL(field: "ruleToc.chapterUrl", url: "javascript:void(0)"), .unusableURL),
            (CancellationError(), .other),
        ]
        for (error, cause) in cases { #expect(FailureCause(error) == cause, "\(error)") }
    }

    @Test("a check and a search sort the same cause their own way")
    func bothTaxonomies() {
        let refused = EngineError.httpStatus(url: "u", status: 403)
        #expect(FailureKind.classify(refused) == .httpError)
        #expect(SearchFailure(classifying: refused).kind == .blocked)
        let timedOut = EngineError.transport(url: "u", error: HTTPTransportError.timedOut(url: "u", seconds: 1))
        #expect(FailureKind.classify(timedOut) == .unreachable)
        #expect(SearchFailure(classifying: timedOut).kind == .timeout)
    }
}

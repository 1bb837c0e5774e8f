import BookRuleLocking
import Foundation
import BookRuleDocument

/// Why a HAR replay could not answer a request.
public enum HARReplayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// No recorded entry has this method and URL (and, for POST, this body, which is nil for GET).
    case notRecorded(method: String, url: String, body: [UInt8]?)
    /// The recorded redirects lead back to an entry already served in the same chain, forever.
    case redirectLoop(url: String)
    /// The recorded redirects go on for more than `limit` hops.
    case tooManyRedirects(url: String, limit: Int)
    /// A recorded redirect's `Location` cannot be resolved to an http(s) URL.
    case invalidRedirect(from: String, location: String)
    /// The browser recorded this request as failed (status 0): there is no response to replay.
    case recordedFailure(method: String, url: String)

    /// What went wrong and how to fix the fixture.
    public var description: String {
        switch self {
        case .notRecorded(let method, let url, let body):
            // The command that adds the missing answer, so a fixture grows page by page from saved pages.
            var add = "bookrule fixture add HAR '\(url)' SAVED_PAGE"
            if method.uppercased() != "GET" { add += " --method \(method)" }
            if let body, !body.isEmpty { add += " --body '\(HTTPRequest.bodyText(body))'" }
            return "no recorded response for \(HTTPRequest.summary(method: method, url: url, body: body)) in the fixture; "
                + "save that page and add it with `\(add)` (or re-record with --record)"
        case .redirectLoop(let url):
            return "the recorded redirects starting at \(url) loop forever (re-record with --record)"
        case .tooManyRedirects(let url, let limit):
            return "the recorded redirects starting at \(url) go on for more than \(limit) hops"
        case .invalidRedirect(let from, let location):
            return "the recorded redirect from \(from) points to \"\(location)\", which is not an http(s) URL"
        case .recordedFailure(let method, let url):
            return "the fixture records \(method) \(url) as failed with no response (re-record with --record)"
        }
    }
}

/// A transport that answers from a HAR recording and never touches the network, so `bookrule test` runs the
/// same on every machine.
///
/// A request matches entries with the same method and URL, and for methods other than GET and HEAD the same
/// body bytes (an absent body equals an empty one). URLs are compared exactly first; if nothing matches, they are
/// compared after normalising percent-encoding (raw CJK vs `%E4…`, hex case), the `#fragment`, host case and
/// default port. Several matching entries are returned in recorded order by successive calls, the last one
/// repeating. Recorded 3xx responses with a `Location` are followed under the rules `CurlTransport` follows
/// live ones by (`RedirectChain`: at most `maximumRedirects`, loops, http(s) only, POST becoming GET on
/// 301/302/303, which headers survive a change of origin, cookies through the request's `CookieStore`), and
/// the final response carries the URL that answered. HTTP/2 pseudo-headers (`:status`) are dropped from replayed responses.
public struct HARReplayTransport: HTTPTransport {
    /// The most redirects followed for one request, as in `CurlTransport`.
    public static let maximumRedirects = RedirectChain.defaultLimit

    /// The recording being replayed.
    public let recording: HARRecording

    private let exactIndex: [Key: [Int]]
    private let normalizedIndex: [Key: [Int]]
    private let cursors: Cursors

    /// Replays `recording`.
    public init(recording: HARRecording) {
        self.recording = recording
        var exact: [Key: [Int]] = [:]
        var normalized: [Key: [Int]] = [:]
        for (index, entry) in recording.entries.enumerated() {
            let method = entry.request.method.uppercased()
            exact[Key(method: method, url: entry.request.url), default: []].append(index)
            normalized[Key(method: method, url: URLEncoding.normalizedForComparison(entry.request.url)), default: []]
                .append(index)
        }
        exactIndex = exact
        normalizedIndex = normalized
        cursors = Cursors()
    }

    /// Loads the HAR file at `path` and replays it; throws `HARError` when the file cannot be loaded.
    public init(contentsOf path: String) throws {
        self.init(recording: try HARRecording.load(contentsOf: path))
    }

    /// Answers `request` from the recording, following recorded redirects; throws `HARReplayError` when the
    /// recording has no answer.
    public func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try replay(request)
    }

    /// The synchronous core of `send`: the recorded hops, followed under `RedirectChain`'s rules (as
    /// `CurlTransport` follows live ones), cookies included.
    func replay(_ request: HTTPRequest) throws(HARReplayError) -> HTTPResponse {
        var chain = RedirectChain(request, limit: Self.maximumRedirects)
        while true {
            let current = chain.hop()
            let index = try nextEntry(for: current)
            let entry = recording.entries[index]
            let recorded = entry.response
            if recorded.status <= 0 { throw .recordedFailure(method: current.method, url: current.url) }
            let headers = recorded.headers.filter { !$0.name.hasPrefix(":") }
            let response = HTTPResponse(
                url: entry.request.url, status: recorded.status, headers: headers,
                body: recorded.content.body ?? []
            )
            var location = headers.value(for: "Location") ?? ""
            if location.isEmpty { location = recorded.redirectURL }
            do {
                let follows = try chain.received(
                    status: recorded.status, headers: headers, location: location, from: entry.request.url)
                if !follows { return response }
            } catch {
                switch error {
                case .unresolvable(let location, let from), .unsupportedScheme(_, let location, let from):
                    throw .invalidRedirect(from: from, location: location)
                case .tooMany(let limit):
                    throw .tooManyRedirects(url: request.url, limit: limit)
                case .loop:
                    throw .redirectLoop(url: request.url)
                }
            }
        }
    }

    /// The index of the entry that answers `request` now, advancing that request's cursor.
    private func nextEntry(for request: HTTPRequest) throws(HARReplayError) -> Int {
        let comparesBody = request.method != "GET" && request.method != "HEAD"
        let body = request.body ?? []
        func matching(_ candidates: [Int]?) -> [Int] {
            guard let candidates else { return [] }
            guard comparesBody else { return candidates }
            return candidates.filter { (recording.entries[$0].request.postData?.body ?? []) == body }
        }
        var candidates = matching(exactIndex[Key(method: request.method, url: request.url)])
        if candidates.isEmpty {
            let normalized = URLEncoding.normalizedForComparison(request.url)
            candidates = matching(normalizedIndex[Key(method: request.method, url: normalized)])
        }
        guard !candidates.isEmpty else {
            throw .notRecorded(method: request.method, url: request.url, body: comparesBody ? body : nil)
        }
        return cursors.advance(candidates)
    }

    private struct Key: Hashable {
        var method: String
        var url: String
    }

    /// How many times each set of matching entries has been used, so repeats come back in recorded order.
    private final class Cursors: Sendable {
        private let served = Locked<[[Int]: Int]>([:])

        /// The next entry of `candidates` (in recorded order), the last one once all have been used.
        func advance(_ candidates: [Int]) -> Int {
            served.withLock { served in
                let count = served[candidates, default: 0]
                served[candidates] = count + 1
                return candidates[min(count, candidates.count - 1)]
            }
        }
    }
}

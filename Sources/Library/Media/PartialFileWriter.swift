#if canImport(Glibc)
import BookRuleLocking
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BookRuleHTTP
import BookRuleJSON

/// The body sink of one download attempt: checks the response head against what the partial file needs
/// (RFC 9110 §14 and §13.1.5), appends the body to `NAME.part`, and commits periodically: flush the data to
/// disk, then replace the sidecar, so the recorded resume point never exceeds durable data.
///
/// It runs on the transport's transfer thread; its state sits behind a lock so the downloader can read the
/// outcome afterwards.
final class PartialFileWriter: HTTPBodySink {
    /// What the head told the writer to do, when it did not simply accept the body.
    enum Verdict: Sendable, Hashable {
        /// The body was (or is being) written.
        case accepted
        /// The partial data cannot be continued: start again from byte 0.
        case restart(reason: String)
        /// A 416 whose complete length equals the local length with a matching validator: the file is whole.
        case alreadyComplete
        /// The server answered with an error status.
        case httpStatus(Int)
        /// A local file operation failed.
        case failed(MediaDownloadError)
    }

    private struct State {
        /// The locked `.part` file; nil once `close()` stopped the writing.
        var part: LockedPartFile?
        var written: Int64
        var committed: Int64
        var lastCommit: ContinuousClock.Instant
        var record: PartialDownloadRecord?
        var verdict: Verdict?
        var restartNote: String?
        /// For a 206: the offset just after the last byte the server said it sends.
        var rangeEnd: Int64?
        /// The server sent more than its range: the body was cut at `rangeEnd` and the transfer stopped.
        var reachedRangeEnd = false
    }

    let task: MediaDownloadTask
    private let requestedFrom: Int64
    private let commitBytes: Int64
    private let commitInterval: Duration
    private let onProgress: @Sendable (Int64, Int64?) -> Void
    private let onRestart: @Sendable (String) -> Void
    private let state: Locked<State>

    /// Writes into `part` (open and locked for the run), cut to `offset` bytes. `record` is the sidecar the
    /// resume is based on (nil for a fresh start); `offset > 0` means the request asks for `bytes=offset-`.
    /// `onRestart` hears, as soon as the head of a 200 arrives, why it replaces the partial data.
    init(
        task: MediaDownloadTask, part: LockedPartFile, offset: Int64, record: PartialDownloadRecord?,
        commitBytes: Int64, commitInterval: Duration, onRestart: @escaping @Sendable (String) -> Void,
        onProgress: @escaping @Sendable (Int64, Int64?) -> Void
    ) throws(MediaDownloadError) {
        try part.cut(to: offset)
        self.task = task
        self.requestedFrom = offset
        self.commitBytes = max(1, commitBytes)
        self.commitInterval = commitInterval
        self.onProgress = onProgress
        self.onRestart = onRestart
        self.state = Locked(State(
            part: part, written: offset, committed: offset, lastCommit: .now, record: record,
            verdict: nil, restartNote: nil, rangeEnd: nil))
    }

    /// Bytes of the `.part` file written so far (earlier runs included).
    var written: Int64 { state.withLock { $0.written } }
    /// The verdict on the response head; nil when no head arrived.
    var verdict: Verdict? { state.withLock { $0.verdict } }
    /// The record describing the data (the new response's validators after a 200).
    var record: PartialDownloadRecord? { state.withLock { $0.record } }
    /// Why a 200 replaced partial data, when it did.
    var restartNote: String? { state.withLock { $0.restartNote } }
    /// For a 206: the offset just after the last byte of the range sent (nil for a 200).
    var rangeEnd: Int64? { state.withLock { $0.rangeEnd } }
    /// Whether the transfer was stopped at `rangeEnd` because the server sent more.
    var reachedRangeEnd: Bool { state.withLock { $0.reachedRangeEnd } }

    func receiveHead(_ head: HTTPResponseHead) -> Bool {
        let (accepted, restartNote) = state.withLock { state in
            let verdict = judge(head, state: &state)
            state.verdict = verdict
            return (verdict == .accepted, state.restartNote)
        }
        // Said when the 200 comes, not once its whole body has arrived.
        if let restartNote { onRestart(restartNote) }
        return accepted
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            guard state.verdict == .accepted else { return false }
            if let limit = task.maximumBytes, state.written + Int64(bytes.count) > limit {
                state.verdict = .failed(.tooLarge(url: task.url, limit: limit))
                return false
            }
            // A server sending past the range it announced: keep the range, stop there, ask for the rest.
            var length = bytes.count
            if let end = state.rangeEnd, state.written + Int64(length) > end {
                length = Int(max(0, end - state.written))
                state.reachedRangeEnd = true
            }
            guard let part = state.part else { return false }
            let written = part.withDescriptor { descriptor -> Bool in
                var offset = 0
                while offset < length {
                    let count = writeFile(descriptor, bytes.baseAddress.map { $0 + offset }, length - offset)
                    if count < 0 {
                        if errno == EINTR { continue }
                        return false
                    }
                    offset += count
                }
                return true
            }
            guard written else {
                state.verdict = .failed(.file(path: task.partPath, reason: Self.systemMessage()))
                return false
            }
            state.written += Int64(length)
            let now = ContinuousClock.now
            if state.written - state.committed >= commitBytes || now - state.lastCommit >= commitInterval {
                do throws(MediaDownloadError) {
                    try commit(&state)
                } catch {
                    state.verdict = .failed(error)
                    return false
                }
            }
            onProgress(state.written, state.record?.totalBytes)
            return !state.reachedRangeEnd
        }
    }

    /// Flushes the data written so far and records it in the sidecar (nothing without a record).
    func commit() throws(MediaDownloadError) {
        try state.withLock { (state: inout State) throws(MediaDownloadError) in try commit(&state) }
    }

    /// Stops writing (the `.part` file itself stays open and locked until the run ends).
    func close() {
        state.withLock { $0.part = nil }
    }

    // MARK: - Deciding on the head

    /// Why a resume got the whole file: the change the validators show (the `If-Range` did not match, so the
    /// file on the server is another one), or, when they did not change, that the server ignored the range.
    static func wholeFileReason(previous: PartialDownloadRecord?, etag: String?, lastModified: String?) -> String {
        if let old = previous?.etag, let etag, old != etag {
            return "the file changed on the server (ETag \(old) → \(etag))"
        }
        if let old = previous?.lastModified, let lastModified, old != lastModified {
            return "the file changed on the server (Last-Modified \(old) → \(lastModified))"
        }
        return "the server sent the whole file (200) instead of the requested range"
    }

    private func judge(_ head: HTTPResponseHead, state: inout State) -> Verdict {
        let etag = head.headers.value(for: "ETag")
        if let limit = task.maximumBytes, (200...206).contains(head.status),
           let length = head.headers.value(for: "Content-Length").flatMap({ Int64($0.trimmingASCIIWhitespace()) }),
           length > limit {
            return .failed(.tooLarge(url: task.url, limit: limit))
        }
        switch head.status {
        case 200:
            if state.written > 0 {
                state.restartNote = requestedFrom > 0
                    ? Self.wholeFileReason(previous: state.record, etag: etag, lastModified: head.headers.value(for: "Last-Modified"))
                    : "the partial data was replaced"
                do throws(MediaDownloadError) {
                    guard let part = state.part else { throw .file(path: task.partPath, reason: "it was closed") }
                    try part.cut(to: 0)
                } catch {
                    return .failed(error)
                }
                state.written = 0
                state.committed = 0
            }
            // Streams are stored as served (the transport does not decode them), so Content-Length counts the
            // stored bytes; but a content-coded answer is not resumed: a range of it could come back coded
            // differently.
            let encoded = head.headers.value(for: "Content-Encoding")
                .map { !["", "identity"].contains($0.trimmingASCIIWhitespace().lowercased()) } ?? false
            let length = head.headers.value(for: "Content-Length").flatMap { Int64($0.trimmingASCIIWhitespace()) }
            let ranges = head.headers.value(for: "Accept-Ranges")?.trimmingASCIIWhitespace().lowercased()
            state.record = PartialDownloadRecord(
                url: task.url, etag: etag, lastModified: head.headers.value(for: "Last-Modified"),
                responseDate: head.headers.value(for: "Date"), totalBytes: length, committedBytes: 0,
                acceptsRanges: ranges != "none" && !encoded)
            do throws(MediaDownloadError) {
                try commit(&state)
            } catch {
                return .failed(error)
            }
            return .accepted
        case 206:
            guard requestedFrom > 0, let record = state.record else {
                return .restart(reason: "the server sent a partial answer (206) to a request for the whole file")
            }
            guard let value = head.headers.value(for: "Content-Range") else {
                return .restart(reason: "the server's 206 has no Content-Range")
            }
            let contentRange: ContentRange
            do {
                contentRange = try ContentRange.parse(value)
            } catch {
                return .restart(reason: "the server sent a \(error)")
            }
            guard let range = contentRange.range, range.lowerBound == requestedFrom else {
                return .restart(reason: "the server sent bytes \(value) instead of bytes \(requestedFrom)- (Content-Range)")
            }
            if let total = record.totalBytes, contentRange.completeLength != total {
                return .restart(reason: "the file's length changed on the server (\(value), was \(total) bytes)")
            }
            if let etag, let stored = record.etag, etag != stored {
                return .restart(reason: "the file changed on the server (ETag \(etag), was \(stored))")
            }
            // Validated by date: a server that ignored If-Range must not splice a newer file onto the old one.
            if record.etag == nil, let stored = record.lastModified,
               let modified = head.headers.value(for: "Last-Modified"), modified != stored {
                return .restart(reason: "the file changed on the server (Last-Modified \(modified), was \(stored))")
            }
            if let coding = head.headers.value(for: "Content-Encoding"),
               !["", "identity"].contains(coding.trimmingASCIIWhitespace().lowercased()) {
                return .restart(reason: "the server sent the range content-coded (\(coding))")
            }
            if record.totalBytes == nil, let total = contentRange.completeLength {
                state.record?.totalBytes = total
            }
            state.rangeEnd = range.upperBound + 1
            return .accepted
        case 416:
            let local = state.written
            guard let record = state.record, requestedFrom > 0 else {
                return .restart(reason: "the server refused the range (416)")
            }
            guard let value = head.headers.value(for: "Content-Range"),
                  let contentRange = try? ContentRange.parse(value), contentRange.range == nil,
                  let complete = contentRange.completeLength
            else {
                // Asked for what follows data whose length was never announced (short 206 answers with `/*`):
                // nothing follows, so the file is whole.
                if record.totalBytes == nil, etag == nil || record.etag == nil || etag == record.etag {
                    return .alreadyComplete
                }
                return .restart(reason: "the server refused the range (416) without saying the file's length")
            }
            let sameLength = complete == local && (record.totalBytes ?? complete) == complete
            let sameValidator = etag == nil || record.etag == nil || etag == record.etag
            guard sameLength && sameValidator else {
                return .restart(reason: "the server's file is \(complete) bytes (416) and the partial file "
                    + "has \(local)" + (sameValidator ? "" : ", and its ETag changed"))
            }
            return .alreadyComplete
        default:
            return .httpStatus(head.status)
        }
    }

    private func commit(_ state: inout State) throws(MediaDownloadError) {
        guard var record = state.record, let part = state.part else { return }
        guard part.withDescriptor({ fdatasync($0) }) == 0 else {
            throw .file(path: task.partPath, reason: Self.systemMessage())
        }
        record.committedBytes = state.written
        do {
            try LocalFile.writeAtomically(try record.encoded(), to: task.sidecarPath)
        } catch let failure as LocalFile.Failure {
            throw .file(path: failure.path, reason: failure.reason)
        } catch {
            throw .file(path: task.sidecarPath, reason: "\(error)")
        }
        state.record = record
        state.committed = state.written
        state.lastCommit = .now
    }

    static func systemMessage() -> String {
        String(cString: strerror(errno))
    }
}

private func writeFile(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

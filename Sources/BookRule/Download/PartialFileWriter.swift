#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import Synchronization

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
        var descriptor: Int32
        var written: Int64
        var committed: Int64
        var lastCommit: ContinuousClock.Instant
        var record: PartialDownloadRecord?
        var verdict: Verdict?
        var restartNote: String?
    }

    let task: MediaDownloadTask
    private let requestedFrom: Int64
    private let commitBytes: Int64
    private let commitInterval: Duration
    private let onProgress: @Sendable (Int64, Int64?) -> Void
    private let state: Mutex<State>

    /// Opens (creating) the task's `.part` file cut to `offset` bytes. `record` is the sidecar the resume is
    /// based on (nil for a fresh start); `offset > 0` means the request asks for `bytes=offset-`.
    init(
        task: MediaDownloadTask, offset: Int64, record: PartialDownloadRecord?, commitBytes: Int64,
        commitInterval: Duration, onProgress: @escaping @Sendable (Int64, Int64?) -> Void
    ) throws(MediaDownloadError) {
        let descriptor = open(task.partPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw .file(path: task.partPath, reason: Self.systemMessage()) }
        // Two runs writing one .part would interleave their data; the lock goes with the descriptor (and with
        // the process, even on kill -9).
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            let reason = errno == EWOULDBLOCK
                ? "another process is downloading this file right now (its .part file is locked)"
                : Self.systemMessage()
            closeFile(descriptor)
            throw .file(path: task.partPath, reason: reason)
        }
        guard ftruncate(descriptor, off_t(offset)) == 0, lseek(descriptor, off_t(offset), SEEK_SET) == off_t(offset) else {
            let reason = Self.systemMessage()
            closeFile(descriptor)
            throw .file(path: task.partPath, reason: reason)
        }
        self.task = task
        self.requestedFrom = offset
        self.commitBytes = max(1, commitBytes)
        self.commitInterval = commitInterval
        self.onProgress = onProgress
        self.state = Mutex(State(
            descriptor: descriptor, written: offset, committed: offset, lastCommit: .now, record: record,
            verdict: nil, restartNote: nil))
    }

    deinit {
        state.withLock { state in
            if state.descriptor >= 0 { closeFile(state.descriptor) }
        }
    }

    /// Bytes of the `.part` file written so far (earlier runs included).
    var written: Int64 { state.withLock { $0.written } }
    /// The verdict on the response head; nil when no head arrived.
    var verdict: Verdict? { state.withLock { $0.verdict } }
    /// The record describing the data (the new response's validators after a 200).
    var record: PartialDownloadRecord? { state.withLock { $0.record } }
    /// Why a 200 replaced partial data, when it did.
    var restartNote: String? { state.withLock { $0.restartNote } }

    func receiveHead(_ head: HTTPResponseHead) -> Bool {
        state.withLock { state in
            let verdict = judge(head, state: &state)
            state.verdict = verdict
            return verdict == .accepted
        }
    }

    func receiveBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        state.withLock { state in
            guard state.verdict == .accepted else { return false }
            var offset = 0
            while offset < bytes.count {
                let count = writeFile(state.descriptor, bytes.baseAddress.map { $0 + offset }, bytes.count - offset)
                if count < 0 {
                    if errno == EINTR { continue }
                    state.verdict = .failed(.file(path: task.partPath, reason: Self.systemMessage()))
                    return false
                }
                offset += count
            }
            state.written += Int64(bytes.count)
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
            return true
        }
    }

    /// Flushes the data written so far and records it in the sidecar (nothing without a record).
    func commit() throws(MediaDownloadError) {
        try state.withLock { (state: inout State) throws(MediaDownloadError) in try commit(&state) }
    }

    /// Closes the `.part` file.
    func close() {
        state.withLock { state in
            if state.descriptor >= 0 { closeFile(state.descriptor) }
            state.descriptor = -1
        }
    }

    // MARK: - Deciding on the head

    private func judge(_ head: HTTPResponseHead, state: inout State) -> Verdict {
        let etag = head.headers.value(for: "ETag")
        switch head.status {
        case 200:
            if state.written > 0 {
                state.restartNote = requestedFrom > 0
                    ? "the server sent the whole file (200) instead of the requested range"
                    : "the partial data was replaced"
                guard ftruncate(state.descriptor, 0) == 0, lseek(state.descriptor, 0, SEEK_SET) == 0 else {
                    return .failed(.file(path: task.partPath, reason: Self.systemMessage()))
                }
                state.written = 0
                state.committed = 0
            }
            let encoded = head.headers.value(for: "Content-Encoding").map { $0.lowercased() != "identity" } ?? false
            let length = encoded ? nil : head.headers.value(for: "Content-Length").flatMap { Int64($0.trimmingASCIIWhitespace()) }
            let ranges = head.headers.value(for: "Accept-Ranges")?.trimmingASCIIWhitespace().lowercased()
            state.record = PartialDownloadRecord(
                url: task.url, etag: etag, lastModified: head.headers.value(for: "Last-Modified"),
                responseDate: head.headers.value(for: "Date"), totalBytes: length, committedBytes: 0,
                acceptsRanges: ranges != "none")
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
            if record.totalBytes == nil, let total = contentRange.completeLength {
                state.record?.totalBytes = total
            }
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
        guard var record = state.record, state.descriptor >= 0 else { return }
        guard fdatasync(state.descriptor) == 0 else { throw .file(path: task.partPath, reason: Self.systemMessage()) }
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

// The instance method `close()` shadows the POSIX function inside the class.
private func closeFile(_ descriptor: Int32) {
    _ = close(descriptor)
}

private func writeFile(_ descriptor: Int32, _ buffer: UnsafeRawPointer?, _ count: Int) -> Int {
    write(descriptor, buffer, count)
}

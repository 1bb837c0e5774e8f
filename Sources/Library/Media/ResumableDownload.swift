#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
import BookRuleLocking
import Foundation
import BookRuleDocument
import BookRuleHTTP
import BookRuleJSON

/// Downloads one file resumably: the resume rules of `docs/downloads.md` (RFC 9110 ranges), retries that
/// continue from the last byte on disk, and the final checks before the file takes its name.
package struct ResumableDownload: Sendable {
    /// How a run ended.
    enum Outcome: Sendable {
        case completed(bytes: Int64, alreadyPresent: Bool)
        case paused(MediaDownloadProgress)
        case failed(MediaDownloadError)
    }

    let task: MediaDownloadTask
    let transport: any HTTPTransport
    let options: MediaDownloader.Options
    let emit: @Sendable (MediaDownloadEvent) -> Void

    /// Most fresh starts in one run before giving up (a file that keeps changing).
    static let maximumRestarts = 3
    /// Most follow-up range requests after short 206 answers in one run.
    static let maximumContinuations = 10_000

    func run() async -> Outcome {
        let meter = ProgressMeter()
        if FileManager.default.fileExists(atPath: task.destination), let size = await verifiedSize(of: task.destination) {
            // Leftovers beside a complete file go, unless another run holds them.
            if let leftover = try? LockedPartFile(path: task.partPath, creating: false) {
                unlink(task.sidecarPath)
                unlink(task.partPath)
                leftover.close()
            }
            return .completed(bytes: size, alreadyPresent: true)
        }
        let directory = (task.destination as NSString).deletingLastPathComponent
        if !directory.isEmpty {
            do {
                try LocalFile.makeDirectories(directory)
            } catch {
                return .failed(.file(path: error.path, reason: error.reason))
            }
        }
        // Locked before anything about the partial data is decided, so a second run cannot discard or mix it.
        let part: LockedPartFile
        do {
            part = try LockedPartFile(path: task.partPath)
        } catch {
            return .failed(error)
        }
        defer {
            // A run that kept nothing leaves no empty `.part` behind (unlinked while still locked; a run that
            // opened it meanwhile sees it gone once it has the lock, and starts over).
            if LocalFile.size(task.partPath) == 0, !FileManager.default.fileExists(atPath: task.sidecarPath) {
                unlink(task.partPath)
            }
            part.close()
        }
        // Another run may have finished the file while this one waited for nothing but the lock.
        if FileManager.default.fileExists(atPath: task.destination), let size = await verifiedSize(of: task.destination) {
            return .completed(bytes: size, alreadyPresent: true)
        }
        var restarts = 0
        var failures = 0
        var continuations = 0
        // The furthest point kept data reached in this run: only getting past it counts as progress.
        var highWater: Int64 = 0
        while true {
            if Task.isCancelled { return .paused(meter.progress(received: LocalFile.size(task.partPath) ?? 0, total: nil)) }
            let (offset, record, note) = resumePoint(part)
            if let note {
                restarts += 1
                emit(.restarted(id: task.id, reason: note))
            }
            let writer: PartialFileWriter
            do {
                writer = try PartialFileWriter(
                    task: task, part: part, offset: offset, record: record, commitBytes: options.commitBytes,
                    commitInterval: options.commitInterval,
                    onRestart: { [emit, id = task.id] reason in emit(.restarted(id: id, reason: reason)) }
                ) { [emit, id = task.id] received, total in
                    if let progress = meter.tick(received: received, total: total) { emit(.progress(id: id, progress)) }
                }
            } catch {
                return .failed(error)
            }
            defer { writer.close() }
            meter.startAttempt(at: offset)
            var request = HTTPRequest(url: task.url, headers: task.headers)
            request.headers.set("Accept-Encoding", "identity")
            if offset > 0, let validator = record?.ifRange {
                request.headers.set("Range", "bytes=\(offset)-")
                request.headers.set("If-Range", validator)
            }
            emit(.started(id: task.id, resumingAt: offset))

            let failure: String
            do {
                let result = try await transport.stream(request, to: writer)
                if writer.restartNote != nil { restarts += 1 }
                switch writer.verdict {
                case .accepted?:
                    if result.stoppedBySink && !writer.reachedRangeEnd {
                        return .failed(.transfer(url: task.url, attempts: failures + 1, message: "the transfer was stopped"))
                    }
                    do {
                        try writer.commit()
                    } catch {
                        return .failed(error)
                    }
                    let written = writer.written
                    let total = writer.record?.totalBytes
                    if let end = writer.rangeEnd, written < end {
                        failure = "the connection closed after \(written) of \(total.map(String.init) ?? "?") bytes"
                    } else if let end = writer.rangeEnd, total.map({ end < $0 }) ?? true {
                        // The server sent part of what was asked (RFC 9110 allows it), or cannot say how long
                        // the file is: ask for the rest. Not a failure; a 416 or the known length ends it.
                        continuations += 1
                        if continuations > Self.maximumContinuations {
                            return .failed(.transfer(url: task.url, attempts: continuations,
                                                     message: "the server keeps sending short ranges"))
                        }
                        continue
                    } else if let total, written < total {
                        failure = "the connection closed after \(written) of \(total) bytes"
                    } else {
                        return await finish(part, bytes: written, announced: total)
                    }
                case .alreadyComplete?:
                    return await finish(part, bytes: writer.written, announced: writer.record?.totalBytes)
                case .restart(let reason)?:
                    discardPartialData(part)
                    restarts += 1
                    if restarts > Self.maximumRestarts {
                        return .failed(.tooManyRestarts(url: task.url, restarts: restarts, reason: reason))
                    }
                    emit(.restarted(id: task.id, reason: reason))
                    continue
                case .httpStatus(let status)?:
                    guard RetryPolicy.isRetriable(status: status) else {
                        if writer.written == 0 { discardPartialData(part) }
                        return .failed(.httpStatus(url: task.url, status: status))
                    }
                    failure = "HTTP \(status)"
                case .failed(let error)?:
                    if case .tooLarge = error { discardPartialData(part) }
                    return .failed(error)
                case nil:
                    failure = "no response"
                }
            } catch {
                try? writer.commit()
                if error is CancellationError || Task.isCancelled {
                    return .paused(meter.progress(received: writer.written, total: writer.record?.totalBytes))
                }
                if let error = error as? FetchError {
                    return .failed(.transfer(url: task.url, attempts: failures + 1, message: error.description))
                }
                guard RetryPolicy.isConnectionError(error) else {
                    return .failed(.transfer(url: task.url, attempts: failures + 1, message: "\(error)"))
                }
                failure = "\(error)"
            }
            // Attempts count in a row: one that took kept data past any earlier point starts the count again,
            // so a large file over a connection that drops now and then still finishes. Data that cannot be
            // continued (no validator, no ranges) is started over by the next attempt, so it is no progress.
            let resumable = writer.record.map { $0.acceptsRanges && $0.ifRange != nil } ?? false
            if resumable && writer.written > highWater {
                highWater = writer.written
                failures = 1
            } else {
                failures += 1
            }
            if failures >= max(1, options.maxAttempts) {
                if writer.written == 0 { discardPartialData(part) }
                return .failed(.transfer(url: task.url, attempts: failures, message: failure))
            }
            emit(.retrying(id: task.id, attempt: failures + 1, reason: failure))
        }
    }

    // MARK: - Resume point

    /// Where to continue from: min(sidecar's committed bytes, the `.part` file's size), with the record to
    /// continue it; offset 0 (and the partial data discarded) when it cannot be continued, with the reason.
    private func resumePoint(_ part: LockedPartFile) -> (offset: Int64, record: PartialDownloadRecord?, note: String?) {
        let partSize = LocalFile.size(task.partPath)
        guard FileManager.default.fileExists(atPath: task.sidecarPath) else {
            if let partSize, partSize > 0 {
                discardPartialData(part)
                return (0, nil, "\(task.partPath) has no sidecar, so it cannot be continued safely")
            }
            return (0, nil, nil)
        }
        let record: PartialDownloadRecord
        do {
            record = try PartialDownloadRecord.decode(try LocalFile.read(task.sidecarPath))
        } catch {
            discardPartialData(part)
            return (0, nil, "the sidecar \(task.sidecarPath) could not be read (\(error))")
        }
        let offset = min(record.committedBytes, partSize ?? 0)
        guard offset > 0 else { return (0, nil, nil) }
        var reason: String?
        if record.version != PartialDownloadRecord.currentVersion {
            reason = "the sidecar is of another version"
        } else if record.url != task.url {
            reason = "the partial file came from another URL (\(record.url))"
        } else if !record.acceptsRanges {
            reason = "the server does not accept ranges (Accept-Ranges: none)"
        } else if record.ifRange == nil {
            reason = "the server gave no strong validator (ETag, or a Last-Modified 60 s older than its Date), "
                + "so the partial data cannot be continued safely"
        } else if let total = record.totalBytes, offset > total {
            reason = "the partial file is longer than the file"
        }
        if let reason {
            discardPartialData(part)
            return (0, nil, reason)
        }
        return (offset, record, nil)
    }

    /// Forgets the partial data: the sidecar goes, the locked `.part` file is cut to nothing (not unlinked,
    /// which would let another run create and lock a new one).
    private func discardPartialData(_ part: LockedPartFile) {
        unlink(task.sidecarPath)
        try? part.cut(to: 0)
    }

    // MARK: - Finishing

    /// Checks the complete `.part` file and gives it its final name.
    private func finish(_ part: LockedPartFile, bytes: Int64, announced: Int64?) async -> Outcome {
        let size = LocalFile.size(task.partPath) ?? -1
        if let announced, size != announced {
            return .failed(.lengthMismatch(path: task.partPath, expected: announced, actual: size))
        }
        if let expected = task.expectedLength, size != expected {
            discardPartialData(part)
            return .failed(.lengthMismatch(path: task.partPath, expected: expected, actual: size))
        }
        if let expected = task.expectedSHA256?.lowercased() {
            let actual: String
            switch await Self.sha256OnOwnThread(ofFile: task.partPath) {
            case .success(let digest): actual = digest
            case .failure(let error): return .failed(error)
            }
            guard actual == expected else {
                discardPartialData(part)
                return .failed(.checksumMismatch(path: task.destination, expected: expected, actual: actual))
            }
        }
        do {
            try LocalFile.moveAtomically(task.partPath, to: task.destination)
        } catch {
            return .failed(.file(path: task.destination, reason: error.reason))
        }
        unlink(task.sidecarPath)
        return .completed(bytes: size, alreadyPresent: false)
    }

    /// The size of a finished file when it passes the task's checks (length and checksum), else nil.
    private func verifiedSize(of path: String) async -> Int64? {
        guard let size = LocalFile.size(path) else { return nil }
        if let expected = task.expectedLength, size != expected { return nil }
        if let expected = task.expectedSHA256?.lowercased() {
            guard case .success(let actual) = await Self.sha256OnOwnThread(ofFile: path), actual == expected else {
                return nil
            }
        }
        return size
    }

    /// `sha256(ofFile:)` on a thread of its own, so hashing a large file never blocks the concurrency pool.
    static func sha256OnOwnThread(ofFile path: String) async -> Result<String, MediaDownloadError> {
        await withCheckedContinuation { continuation in
            let started = BlockingWorkThread.start {
                continuation.resume(returning: Result { () throws(MediaDownloadError) -> String in
                    try sha256(ofFile: path)
                })
            }
            if !started {
                continuation.resume(returning: .failure(.file(
                    path: path, reason: "no thread could be started to check its SHA-256 (out of threads or memory)")))
            }
        }
    }

    /// The SHA-256 of the file at `path`, read in pieces.
    package static func sha256(ofFile path: String) throws(MediaDownloadError) -> String {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw .file(path: path, reason: PartialFileWriter.systemMessage()) }
        defer { close(descriptor) }
        var hash = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .file(path: path, reason: PartialFileWriter.systemMessage())
            }
            if count == 0 { break }
            buffer.withUnsafeBytes { hash.update(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
        }
        return hash.hexDigest()
    }
}

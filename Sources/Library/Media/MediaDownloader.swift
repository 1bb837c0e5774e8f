import BookRuleHTTP
import BookRuleJSON

/// Downloads many files at once, resumably, politely, with per-task state and progress.
///
/// Tasks run at most `jobs` at a time and at most `perHost` per host (`scheme://host:port`), so different hosts
/// run in parallel while each host still gets its turns from the polite fetcher the transport is. Each file is
/// streamed to `NAME.part` beside its destination with a sidecar `NAME.part.json` (see `docs/downloads.md`):
/// pausing or a crash keeps the partial data, and the next run continues it with an HTTP range request when the
/// server's validators allow. A destination that already exists and passes the task's checks is not fetched.
///
/// Events arrive on `events` in order per task; call `finishEvents()` when done so the stream ends. They are
/// buffered until read (about ten progress events a second per running task), so a long-lived downloader
/// should have a reader.
public actor MediaDownloader {
    /// Tuning that rarely needs changing.
    public struct Options: Sendable, Hashable {
        /// Attempts per task for connection errors and 408/429/5xx answers; each continues the partial data.
        public var maxAttempts: Int
        /// Commit (flush data, then write the sidecar) after this many new bytes…
        public var commitBytes: Int64
        /// …or after this long, whichever comes first.
        public var commitInterval: Duration

        /// Creates options; the defaults lose at most 512 KiB or one second of data to a crash.
        public init(maxAttempts: Int = 5, commitBytes: Int64 = 512 * 1024, commitInterval: Duration = .seconds(1)) {
            self.maxAttempts = maxAttempts
            self.commitBytes = commitBytes
            self.commitInterval = commitInterval
        }
    }

    private struct Entry {
        var task: MediaDownloadTask
        var host: String
        var state: MediaDownloadState
        var runner: Task<Void, Never>?
        var pauseRequested = false
        /// `resume` was called while a requested pause was still stopping the transfer: queue it again then.
        var resumeRequested = false
    }

    /// Every event of every task, in order per task.
    public nonisolated let events: AsyncStream<MediaDownloadEvent>
    /// The most tasks transferring at once.
    public nonisolated let jobs: Int
    /// The most tasks of one host transferring at once.
    public nonisolated let perHost: Int
    /// The tuning in use.
    public nonisolated let options: Options

    private let continuation: AsyncStream<MediaDownloadEvent>.Continuation
    private let transport: any HTTPTransport
    private var entries: [String: Entry] = [:]
    private var order: [String] = []
    private var idleWaiters: [CheckedContinuation<Void, Never>] = []

    /// A downloader sending through `transport` (normally the run's shared `PoliteFetcher`).
    public init(transport: any HTTPTransport, jobs: Int = 4, perHost: Int = 1, options: Options = Options()) {
        self.transport = transport
        self.jobs = max(1, jobs)
        self.perHost = max(1, perHost)
        self.options = options
        (events, continuation) = AsyncStream.makeStream(of: MediaDownloadEvent.self, bufferingPolicy: .unbounded)
    }

    /// Adds `task` (queued) and starts it when a slot is free. Throws when another task has its id or destination.
    public func add(_ task: MediaDownloadTask) throws(MediaDownloadError) {
        guard entries[task.id] == nil, !entries.values.contains(where: { $0.task.destination == task.destination }) else {
            throw .duplicateTask(id: task.id, destination: task.destination)
        }
        entries[task.id] = Entry(task: task, host: PoliteFetcher.hostKey(task.url) ?? task.url, state: .queued)
        order.append(task.id)
        continuation.yield(.queued(id: task.id))
        schedule()
    }

    /// The state of task `id`, or nil for an unknown id.
    public func state(of id: String) -> MediaDownloadState? {
        entries[id]?.state
    }

    /// Every task with its state, in the order added.
    public func snapshot() -> [(task: MediaDownloadTask, state: MediaDownloadState)] {
        order.compactMap { id in entries[id].map { ($0.task, $0.state) } }
    }

    /// Pauses task `id`: a queued task stays out of the queue; a running one stops its transfer, commits what
    /// it has and keeps it. `resume` continues it.
    public func pause(_ id: String) {
        guard var entry = entries[id] else { return }
        switch entry.state {
        case .queued:
            entry.state = .paused
            entries[id] = entry
            continuation.yield(.paused(id: id, MediaDownloadProgress(
                receivedBytes: LocalFile.size(entry.task.partPath) ?? 0, totalBytes: nil, bytesPerSecond: 0)))
            wakeIdleWaiters()
        case .running:
            entry.pauseRequested = true
            entry.resumeRequested = false
            entries[id] = entry
            entry.runner?.cancel()
        case .paused, .completed, .failed:
            break
        }
    }

    /// Pauses every queued and running task.
    public func pauseAll() {
        for id in order { pause(id) }
    }

    /// Queues a paused or failed task again.
    public func resume(_ id: String) {
        guard var entry = entries[id] else { return }
        switch entry.state {
        case .paused, .failed:
            entry.state = .queued
            entry.pauseRequested = false
            entries[id] = entry
            continuation.yield(.queued(id: id))
            schedule()
        case .running where entry.pauseRequested:
            // The transfer is still stopping; it is queued again once it has.
            entry.resumeRequested = true
            entries[id] = entry
        case .queued, .running, .completed:
            break
        }
    }

    /// Queues every paused task again.
    public func resumeAll() {
        for id in order where entries[id]?.state == .paused || entries[id]?.pauseRequested == true { resume(id) }
    }

    /// Returns when no task is queued or running (every task is completed, failed or paused).
    public func waitUntilIdle() async {
        if isIdle { return }
        await withCheckedContinuation { idleWaiters.append($0) }
    }

    /// Runs the tasks added so far to the end and ends `events`: the caller's cancellation pauses every task
    /// (so its `.part` file is kept for the next run) and is then thrown.
    /// - Returns: every task with its final state.
    package func finishAll() async throws -> [(task: MediaDownloadTask, state: MediaDownloadState)] {
        await withTaskCancellationHandler {
            await waitUntilIdle()
        } onCancel: {
            Task { await self.pauseAll() }
        }
        finishEvents()
        try Task.checkCancellation()
        return snapshot()
    }

    /// Ends `events` (call when no more tasks will be added and the downloader is idle).
    public func finishEvents() {
        continuation.finish()
    }

    // MARK: - Scheduling

    private var isIdle: Bool {
        !entries.values.contains { $0.state == .queued || $0.state == .running }
    }

    private func wakeIdleWaiters() {
        guard isIdle else { return }
        let waiters = idleWaiters
        idleWaiters = []
        for waiter in waiters { waiter.resume() }
    }

    /// Starts queued tasks, in order, while slots are free and their host has room.
    private func schedule() {
        var running = entries.values.filter { $0.state == .running }.count
        var perHostRunning: [String: Int] = [:]
        for entry in entries.values where entry.state == .running { perHostRunning[entry.host, default: 0] += 1 }
        for id in order {
            guard running < jobs else { break }
            guard var entry = entries[id], entry.state == .queued, perHostRunning[entry.host, default: 0] < perHost else {
                continue
            }
            running += 1
            perHostRunning[entry.host, default: 0] += 1
            entry.state = .running
            let download = ResumableDownload(
                task: entry.task, transport: transport, options: options, emit: { [continuation] event in
                    continuation.yield(event)
                })
            entry.runner = Task {
                let outcome = await download.run()
                self.finished(id, outcome)
            }
            entries[id] = entry
        }
        wakeIdleWaiters()
    }

    private func finished(_ id: String, _ outcome: ResumableDownload.Outcome) {
        guard var entry = entries[id] else { return }
        entry.runner = nil
        switch outcome {
        case .completed(let bytes, let alreadyPresent):
            entry.state = .completed
            continuation.yield(.completed(id: id, path: entry.task.destination, bytes: bytes, alreadyPresent: alreadyPresent))
        case .paused(let progress):
            entry.state = .paused
            continuation.yield(.paused(id: id, progress))
        case .failed(let error):
            if entry.pauseRequested {
                entry.state = .paused
                continuation.yield(.paused(id: id, MediaDownloadProgress(
                    receivedBytes: LocalFile.size(entry.task.partPath) ?? 0, totalBytes: nil, bytesPerSecond: 0)))
            } else {
                entry.state = .failed(reason: error.description)
                continuation.yield(.failed(id: id, error))
            }
        }
        entry.pauseRequested = false
        if entry.resumeRequested, entry.state == .paused {
            entry.state = .queued
            continuation.yield(.queued(id: id))
        }
        entry.resumeRequested = false
        entries[id] = entry
        schedule()
    }
}

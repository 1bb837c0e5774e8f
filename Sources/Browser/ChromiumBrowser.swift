#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif
import BookRuleDocument
import BookRuleHTTP
import BookRuleLocking

/// Headless Chromium as a renderer of `webView` pages, every request the page makes answered through the
/// caller's transport (the polite fetcher, a recording of it, a HAR replay), never by the browser itself.
///
/// One browser per process (`shared`): started when the first page needs it, reused for the next (each page
/// in a fresh browser context, so no cookie or storage crosses between pages), started again when it died,
/// and ended when the process exits. At most `limits.concurrentPages` pages render at once.
public final class ChromiumBrowser: Sendable {
    /// The process's browser, with the default limits.
    public static let shared = ChromiumBrowser()

    /// Bounds on each page and on the browser.
    public let limits: BrowserLimits
    private let running = Locked<(process: ChromiumProcess, pipe: DevToolsPipe)?>(nil)
    private let places: PagePlaces
    private let started = Locked(0)
    private let executable: String?

    /// A browser with `limits`; nothing starts until the first page. `executable` is the Chromium to run (nil:
    /// `BOOKRULE_CHROMIUM`, else `/usr/bin/chromium` and the other usual places).
    public init(limits: BrowserLimits = BrowserLimits(), executable: String? = nil) {
        self.limits = limits
        self.executable = executable
        places = PagePlaces(count: max(1, limits.concurrentPages))
    }

    /// Whether a Chromium binary is installed where bookrule looks (`BOOKRULE_CHROMIUM`, `/usr/bin/chromium`, …).
    public static var isInstalled: Bool { ChromiumProcess.executable() != nil }

    /// How many times this browser was started (a restart after it died counts), for tests.
    public var startCount: Int { started.withLock { $0 } }

    /// The running browser's process id, for tests that end it from outside.
    package var processID: Int32? { running.withLock { $0?.process.pid } }

    /// Renders `page`, answering every request it makes through `transport`.
    public func render(_ page: WebViewPage, through transport: any HTTPTransport) async throws -> RenderedPage {
        guard URLReference.isHTTP(page.request.url) else { throw BrowserError.notHTTP(page.request.url) }
        try await places.acquire()
        defer { Task { await places.release() } }
        // A browser found dead at the page's first command is started again, once.
        for attempt in 1...2 {
            let pipe = try pipe()
            do {
                return try await PageSession(pipe: pipe, page: page, transport: transport, limits: limits,
                                             stuck: { [self] in close() }).run()
            } catch BrowserError.browserExited where attempt == 1 {
                continue
            }
        }
        throw BrowserError.browserExited
    }

    /// Ends the browser now (the next page starts another).
    public func close() {
        running.withLock { running in
            guard let current = running else { return }
            current.process.terminate()
            ExitCleanup.forget(current.process)
            running = nil
        }
    }

    /// The running browser's pipe, starting (or restarting) the browser when there is none or it died.
    private func pipe() throws(BrowserError) -> DevToolsPipe {
        try running.withLock { (running) throws(BrowserError) -> DevToolsPipe in
            if let current = running, !current.pipe.isClosed, !current.process.hasExited { return current.pipe }
            if let dead = running {
                dead.process.terminate()
                ExitCleanup.forget(dead.process)
            }
            running = nil
            let process = try ChromiumProcess(limits: limits, executable: executable)
            let pipe: DevToolsPipe
            do throws(BrowserError) {
                pipe = try DevToolsPipe(socket: process.socket)
            } catch {
                process.terminate()
                throw error
            }
            ExitCleanup.remember(process)
            started.withLock { $0 += 1 }
            running = (process, pipe)
            return pipe
        }
    }
}

/// The browsers still running, ended (and their profiles removed) when the process exits.
enum ExitCleanup {
    private static let live = Locked<[pid_t: ChromiumProcess]>([:])
    private static let registered = Locked(false)

    static func remember(_ process: ChromiumProcess) {
        live.withLock { $0[process.pid] = process }
        let first = registered.withLock { registered in
            defer { registered = true }
            return !registered
        }
        if first { atexit { ExitCleanup.endAll() } }
    }

    static func forget(_ process: ChromiumProcess) {
        _ = live.withLock { $0.removeValue(forKey: process.pid) }
    }

    private static func endAll() {
        let processes = live.withLock { live in
            defer { live.removeAll() }
            return Array(live.values)
        }
        processes.forEach { $0.terminate() }
    }
}

/// A counted number of places for pages, handed out in arrival order. A waiter whose task is cancelled leaves
/// the queue at once (a search's per-source timeout cancels pages still waiting for a place), and a place handed
/// to a waiter cancelled in the same moment goes back, so no place is ever lost.
actor PagePlaces {
    private var free: Int
    private var waiting: [(id: UInt64, continuation: CheckedContinuation<Bool, Never>)] = []
    private var nextID: UInt64 = 0

    init(count: Int) { free = count }

    func acquire() async throws {
        try Task.checkCancellation()
        if free > 0 {
            free -= 1
            return
        }
        nextID &+= 1
        let id = nextID
        let granted = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                if Task.isCancelled {
                    continuation.resume(returning: false)
                } else {
                    waiting.append((id, continuation))
                }
            }
        } onCancel: {
            Task { await self.cancel(id) }
        }
        guard granted else { throw CancellationError() }
        if Task.isCancelled {
            release()
            throw CancellationError()
        }
    }

    func release() {
        if waiting.isEmpty { free += 1 } else { waiting.removeFirst().continuation.resume(returning: true) }
    }

    /// The waiter `id` gives up (its task was cancelled), if it is still waiting.
    private func cancel(_ id: UInt64) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(returning: false)
    }
}

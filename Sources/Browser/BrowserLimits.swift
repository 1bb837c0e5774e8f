/// Bounds on the browser and on each page it renders.
public struct BrowserLimits: Sendable, Equatable {
    /// The whole of one page: load, settling, `webJs` and its retries. A page script that loops forever is
    /// stopped when this runs out.
    public var pageSeconds: Double
    /// At most this many pages at once in the one browser; more wait for a place.
    public var concurrentPages: Int
    /// The V8 heap of each renderer, in MiB (`--js-flags=--max-old-space-size`).
    public var heapMiB: Int
    /// How often `webJs` is evaluated again while it gives nothing, one second apart (Legado: 30).
    public var scriptTries: Int
    /// The quiet time after the load event with no request outstanding before `webJs` runs, in seconds:
    /// a page's script that fetches JSON and builds the list is done by then.
    public var settleSeconds: Double
    /// The closed port the browser's proxy points at, so anything not intercepted fails at once.
    public var refusingProxyPort: Int

    /// The defaults: 30 s per page, 2 pages at once, 512 MiB of heap, 30 tries, 0.5 s of quiet, proxy on port 9.
    public init(pageSeconds: Double = 30, concurrentPages: Int = 2, heapMiB: Int = 512, scriptTries: Int = 30,
                settleSeconds: Double = 0.5, refusingProxyPort: Int = 9) {
        self.pageSeconds = pageSeconds
        self.concurrentPages = concurrentPages
        self.heapMiB = heapMiB
        self.scriptTries = scriptTries
        self.settleSeconds = settleSeconds
        self.refusingProxyPort = refusingProxyPort
    }
}

import BookRuleLocking
import BookRuleHTTP

/// What the studio remembers between requests, in memory only: the page each step is looking at and the
/// fixture files the author opened as pages (which later steps may be answered from).
package final class StudioSession: Sendable {
    private let state = Locked(State())

    private struct State {
        var pages: [StudioStep: StudioPage] = [:]
        var openedFiles: [SavedPage] = []
    }

    /// Creates an empty session.
    package init() {}

    /// The page `step` is looking at, if any.
    package func page(_ step: StudioStep) -> StudioPage? {
        state.withLock { $0.pages[step] }
    }

    /// Makes `page` the one `step` looks at.
    package func setPage(_ page: StudioPage, for step: StudioStep) {
        state.withLock { $0.pages[step] = page }
    }

    /// The fixture files opened as pages, newest last.
    package var openedFiles: [SavedPage] {
        state.withLock { $0.openedFiles }
    }

    /// Remembers an opened file (replacing one saved for the same URL).
    package func addOpenedFile(_ page: SavedPage) {
        state.withLock { state in
            state.openedFiles.removeAll { $0.url == page.url && $0.method == page.method }
            state.openedFiles.append(page)
        }
    }
}

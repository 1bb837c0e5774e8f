import BookRuleLibrary
import BookRuleLocking
import Foundation

/// `--webdav`: the served library's reading progress kept in step with the Legado app's WebDAV folder, as the
/// app does it (docs/webdav.md): every book's progress both ways at start and every `interval`, and a book's
/// progress written to `bookProgress/` soon after a client saves it (`debounce` after the last save of that
/// book, so a reader turning pages sends one file, not one per page).
final class WebDAVProgressSync: Sendable {
    private let bridge: LegadoWebDAV
    private let store: LibraryStore
    private let debounce: Duration
    private let report: @Sendable (String) -> Void
    private let schedule: Locked<Task<Void, Never>?> = Locked(nil)
    private let pending = Locked<[Int64: Task<Void, Never>]>([:])

    /// Starts the schedule: a sync at once, then one every `interval`; `report` hears one line per sync that
    /// moved something or failed.
    init(bridge: LegadoWebDAV, store: LibraryStore, interval: Duration, debounce: Duration = .seconds(3),
         report: @escaping @Sendable (String) -> Void) {
        self.bridge = bridge
        self.store = store
        self.debounce = debounce
        self.report = report
        let task = Task { [bridge, store] in
            while !Task.isCancelled {
                do {
                    let moved = try await bridge.syncProgress(store: store)
                    if !moved.pulled.isEmpty || !moved.pushed.isEmpty {
                        report("WebDAV: progress of \(moved.pulled.count) book(s) taken, \(moved.pushed.count) written")
                    }
                } catch {
                    report("WebDAV: progress not synced: \(error)")
                }
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
            }
        }
        schedule.withLock { $0 = task }
    }

    /// A client saved book `bookID`'s progress: write it to the server after `debounce`, unless it is saved
    /// again before then.
    func progressSaved(bookID: Int64) {
        let task = Task { [bridge, store, debounce, report] in
            do {
                try await Task.sleep(for: debounce)
            } catch {
                return
            }
            guard let book = try? store.book(id: bookID), let progress = try? store.readingProgress()[bookID] else { return }
            do {
                try await bridge.push(LegadoBookProgress(name: book.name, author: book.author, progress: progress))
            } catch {
                report("WebDAV: progress of \(book.name) not written: \(error)")
            }
        }
        let previous = pending.withLock { $0.updateValue(task, forKey: bookID) }
        previous?.cancel()
    }

    /// Stops the schedule and the pending writes, and waits for them.
    func stop() async {
        let task = schedule.withLock { $0 }
        task?.cancel()
        await task?.value
        let writes = pending.withLock { pending in
            defer { pending.removeAll() }
            return Array(pending.values)
        }
        for write in writes {
            write.cancel()
            await write.value
        }
    }
}

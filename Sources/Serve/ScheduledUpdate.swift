import BookRuleLibrary

/// `--update-every`: every `interval`, every book of the library is brought up to date as `bookrule update
/// --all` does (new chapters fetched through the one polite transport), one book after another. The first
/// run is one interval after start; `stop()` cancels a run, abandoning the chapter in flight.
final class ScheduledUpdate: Sendable {
    private let task: Task<Void, Never>

    /// Starts the schedule; `report` hears one line per run.
    init(library: ServeLibrary, interval: Duration, report: @escaping @Sendable (String) -> Void) {
        task = Task {
            while !Task.isCancelled {
                do {
                    try await Task.sleep(for: interval)
                } catch {
                    return
                }
                let store = library.store
                guard let books = try? store.books(), !books.isEmpty else { continue }
                let update = LibraryUpdate(store: store, stack: library.transport)
                var saved = 0
                var problems = 0
                for await event in update.run(books: books) {
                    if case .bookFinished(let outcome) = event {
                        saved += outcome.saved
                        if outcome.problem != nil || outcome.failed > 0 { problems += 1 }
                    }
                }
                report("updated \(books.count) book(s): \(saved) chapter(s) saved" + (problems > 0 ? ", \(problems) with problems" : ""))
            }
        }
    }

    /// Stops the schedule and waits for its run to end.
    func stop() async {
        task.cancel()
        await task.value
    }
}

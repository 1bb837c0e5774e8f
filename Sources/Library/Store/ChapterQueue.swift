/// The chapters still to fetch in a `fetch --mirrors` run, shared by one worker per host: each worker takes
/// the first chapter (in TOC order) it can serve and has not tried yet; a chapter a worker failed goes back
/// for the others. What no worker could save is left to the sequential pass after it.
actor ChapterQueue {
    private var pending: [StoredChapter]
    private var tried: [String: Set<Int>] = [:]

    init(_ chapters: [StoredChapter]) {
        pending = chapters
    }

    /// The next chapter for `worker`, among `servable` URLs (every one when nil); nil when none is left for it.
    func take(worker: Int, servable: Set<String>?) -> StoredChapter? {
        guard let index = pending.firstIndex(where: { chapter in
            !(tried[chapter.url]?.contains(worker) ?? false) && (servable?.contains(chapter.url) ?? true)
        }) else { return nil }
        return pending.remove(at: index)
    }

    /// Puts back a chapter `worker` failed, for the other workers.
    func giveBack(_ chapter: StoredChapter, worker: Int) {
        tried[chapter.url, default: []].insert(worker)
        let index = pending.firstIndex { $0.position > chapter.position } ?? pending.endIndex
        pending.insert(chapter, at: index)
    }
}

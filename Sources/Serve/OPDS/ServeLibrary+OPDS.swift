import BookRuleLibrary

extension ServeLibrary {
    /// Fetches and saves every chapter of `chapters` (a book's TOC) not saved yet, one after another in the
    /// background, through the same single-flight fetches a reader's request joins (what the OPDS catalog starts
    /// for a book it adds from a search). The run stops at a chapter the site will not give, or when the server
    /// stops; a stopping server waits for the chapter being saved.
    func fetchInBackground(_ chapters: [StoredChapter], of book: StoredBook) {
        let unsaved = chapters.filter { !$0.isVolume && $0.state != .done }
        prefetch(unsaved[...], of: book)
    }
}

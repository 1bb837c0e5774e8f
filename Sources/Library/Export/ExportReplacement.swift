extension LibraryExport {
    /// This export with `run`'s replace rules applied to every chapter's title (rules with `scopeTitle`) and
    /// text (rules with `scopeContent`), picture lines left alone; the library's saved text is unchanged. Call it
    /// after `converted(_:)`, as Legado replaces after converting. The warnings of rules disabled on the way are
    /// added to `warnings`.
    public func replaced(by run: ReplaceRuleRun) -> LibraryExport {
        var copy = self
        if !run.isEmpty {
            for index in copy.book.chapters.indices {
                copy.book.chapters[index].title = run.apply(book.chapters[index].title, to: .title)
                guard !copy.book.chapters[index].isVolume else { continue }
                copy.book.chapters[index].text = run.apply(book.chapters[index].text, to: .content)
            }
        }
        copy.warnings += run.warnings
        return copy
    }
}

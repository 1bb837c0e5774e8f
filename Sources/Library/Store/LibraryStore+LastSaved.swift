import Foundation

extension LibraryStore {
    /// When anything of `book` was last saved: its newest chapter's save, or the book's own record when no
    /// chapter was saved after it. `StoredBook.updatedAt` alone is when the last run read the book page,
    /// which is the start of that run, not its last save.
    public func lastSaved(_ book: StoredBook) throws(LibraryError) -> Date {
        let newest = try chapters(bookID: book.id, states: [.done]).compactMap(\.fetchedAt).max()
        return max(book.updatedAt, newest ?? book.updatedAt)
    }
}

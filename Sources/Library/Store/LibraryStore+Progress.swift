import Foundation

extension LibraryStore {
    // MARK: - Reading progress

    /// Records where the reader is in book `bookID`, replacing what was recorded before (one transaction).
    /// - Throws: `LibraryError.unknownBook` when there is no such book.
    public func saveProgress(bookID: Int64, _ progress: ReadingProgress) throws(LibraryError) {
        try database.transaction("saving the reading progress of book \(bookID)") { (connection) throws(LibraryError) in
            try Self.requireBook(bookID, connection)
            try connection.run("""
                INSERT INTO reading_progress (book_id, chapter_index, chapter_position, chapter_title, read_at)
                VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (book_id) DO UPDATE SET chapter_index = excluded.chapter_index,
                    chapter_position = excluded.chapter_position, chapter_title = excluded.chapter_title,
                    read_at = excluded.read_at
                """, purpose: "saving the reading progress of book \(bookID)",
                bindings: [bookID, progress.chapterIndex, progress.chapterPosition, progress.chapterTitle,
                           Self.milliseconds(progress.readAt)])
        }
    }

    /// The reading progress of every book that has one, by book id.
    public func readingProgress() throws(LibraryError) -> [Int64: ReadingProgress] {
        let rows = try database.query("""
            SELECT book_id, chapter_index, chapter_position, chapter_title, read_at FROM reading_progress
            """, purpose: "reading the reading progress") { (row) throws(LibraryError) in
            (row.int64(0), ReadingProgress(chapterIndex: row.int(1), chapterPosition: row.int(2),
                                           chapterTitle: row.text(3), readAt: Self.date(row.int64(4))))
        }
        return Dictionary(rows, uniquingKeysWith: { first, _ in first })
    }
}

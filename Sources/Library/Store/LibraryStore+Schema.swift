import Foundation
import BookRuleJSON

extension LibraryStore {
    // MARK: - Schema

    /// Marks the file as a bookrule library (`PRAGMA application_id`, "bkrl"), so another program's database is
    /// refused instead of being given bookrule's tables.
    static let applicationID: Int32 = 0x626B_726C

    /// The schema, one entry per version: entry N-1 takes a library from version N-1 to N. Append, never edit:
    /// libraries in the wild were built by the entries already released. (Foreign keys stay on during
    /// migrations; a future migration that rebuilds a referenced table has to account for that.)
    static let migrations: [String] = [
        """
        CREATE TABLE sources (
            url TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            json TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;
        CREATE TABLE books (
            id INTEGER PRIMARY KEY,
            source_url TEXT NOT NULL REFERENCES sources (url) ON UPDATE CASCADE,
            url TEXT NOT NULL,
            name TEXT NOT NULL,
            author TEXT NOT NULL,
            intro TEXT NOT NULL,
            kind TEXT NOT NULL,
            cover_url TEXT NOT NULL,
            toc_url TEXT NOT NULL,
            variables TEXT NOT NULL,
            created_at INTEGER NOT NULL,
            updated_at INTEGER NOT NULL,
            UNIQUE (source_url, url)
        ) STRICT;
        CREATE INDEX books_by_url ON books (url);
        CREATE TABLE chapters (
            id INTEGER PRIMARY KEY,
            book_id INTEGER NOT NULL REFERENCES books (id) ON DELETE CASCADE,
            key TEXT NOT NULL,
            url TEXT NOT NULL,
            position INTEGER NOT NULL,
            title TEXT NOT NULL,
            is_volume INTEGER NOT NULL CHECK (is_volume IN (0, 1)),
            in_toc INTEGER NOT NULL DEFAULT 1 CHECK (in_toc IN (0, 1)),
            state TEXT NOT NULL DEFAULT 'pending' CHECK (state IN ('pending', 'done', 'failed')),
            attempts INTEGER NOT NULL DEFAULT 0,
            last_error TEXT,
            fetched_at INTEGER,
            text_length INTEGER NOT NULL DEFAULT 0,
            UNIQUE (book_id, key)
        ) STRICT;
        CREATE INDEX chapters_by_position ON chapters (book_id, position);
        CREATE INDEX chapters_by_state ON chapters (book_id, state, is_volume);
        CREATE TABLE chapter_texts (
            chapter_id INTEGER PRIMARY KEY REFERENCES chapters (id) ON DELETE CASCADE,
            text TEXT NOT NULL
        ) STRICT;
        """,
        // Version 2: a removed book's id is never given to another book. Files kept by book id beside the
        // library (covers, media) of a removed book must not be found by a new one.
        """
        CREATE TABLE removed_books (id INTEGER PRIMARY KEY) STRICT;
        CREATE TRIGGER remember_removed_book AFTER DELETE ON books BEGIN
            INSERT OR IGNORE INTO removed_books (id) VALUES (old.id);
        END;
        """,
        // Version 3: a book is known on several sources (`bookrule sources`, `switch`), and each saved chapter
        // remembers which source its text came from. The current source of every book is its first known one.
        """
        CREATE TABLE book_sources (
            book_id INTEGER NOT NULL REFERENCES books (id) ON DELETE CASCADE,
            source_url TEXT NOT NULL REFERENCES sources (url) ON UPDATE CASCADE,
            book_url TEXT NOT NULL,
            variables TEXT NOT NULL DEFAULT '{}',
            toc_length INTEGER,
            latest_chapter TEXT,
            checked_at INTEGER,
            PRIMARY KEY (book_id, source_url)
        ) STRICT;
        INSERT INTO book_sources (book_id, source_url, book_url, variables)
            SELECT id, source_url, url, variables FROM books;
        ALTER TABLE chapters ADD COLUMN source_url TEXT;
        UPDATE chapters SET source_url = (SELECT b.source_url FROM books b WHERE b.id = chapters.book_id)
            WHERE state = 'done';
        """,
        // Version 4: where the reader is in each book (`bookrule serve`'s saveBookProgress, Legado's
        // durChapterIndex/durChapterPos/durChapterTitle/durChapterTime), shown by `bookrule library`.
        """
        CREATE TABLE reading_progress (
            book_id INTEGER PRIMARY KEY REFERENCES books (id) ON DELETE CASCADE,
            chapter_index INTEGER NOT NULL,
            chapter_position INTEGER NOT NULL,
            chapter_title TEXT NOT NULL,
            read_at INTEGER NOT NULL
        ) STRICT;
        """,
        // Version 5: RSS sources (Legado's 订阅源), kept beside the book sources as Legado keeps them apart:
        // `bookrule serve`'s getRssSources/saveRssSource/deleteRssSources. No book is on one.
        """
        CREATE TABLE rss_sources (
            url TEXT PRIMARY KEY NOT NULL,
            name TEXT NOT NULL,
            json TEXT NOT NULL,
            updated_at INTEGER NOT NULL
        ) STRICT;
        """,
    ]

    /// Brings the schema to `schemaVersion` in one transaction, refusing files that are not bookrule libraries
    /// and libraries from a newer build. An up-to-date library is only read, so opening one never waits for
    /// another process's write.
    func migrate() throws(LibraryError) {
        let path = path
        let directory = directory
        let purpose = "reading the library schema version"
        if try Self.checkHeader(path: path, try database.withConnection { (connection) throws(LibraryError) in
            try Self.header(connection, purpose: purpose)
        }) { return }
        try database.transaction("upgrading the library schema") { (connection) throws(LibraryError) in
            // Read again under the write lock: another process may have migrated in between.
            let header = try Self.header(connection, purpose: purpose)
            if try Self.checkHeader(path: path, header) { return }
            for (index, sql) in Self.migrations.enumerated().dropFirst(header.version) {
                try connection.execute(sql, purpose: "upgrading the library schema to version \(index + 1)")
            }
            if header.version < 2 {
                try Self.rememberIDsOfFilesLeftBehind(connection, directory: directory)
            }
            try connection.execute("PRAGMA application_id = \(Self.applicationID)", purpose: "marking the library")
            try connection.execute("PRAGMA user_version = \(Self.migrations.count)",
                                   purpose: "recording the library schema version")
        }
    }

    /// Ids of books removed before version 2 remembered them, found from the files still kept by id
    /// (`covers/<id>`, `media/<id>/`): no new book may take them and inherit those files.
    static func rememberIDsOfFilesLeftBehind(_ connection: borrowing SQLiteConnection, directory: String) throws(LibraryError) {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/covers")) ?? [])
            + ((try? FileManager.default.contentsOfDirectory(atPath: directory + "/media")) ?? [])
        let remember = try connection.prepare("""
            INSERT OR IGNORE INTO removed_books (id) SELECT ?1 WHERE NOT EXISTS (SELECT 1 FROM books WHERE id = ?1)
            """, purpose: "remembering the ids of removed books")
        for name in names {
            guard let id = Int64(name), id > 0 else { continue }
            try remember.run([id])
        }
    }

    typealias Header = (version: Int, application: Int, objects: Int)

    /// `user_version`, `application_id` and the number of schema objects.
    static func header(_ connection: borrowing SQLiteConnection,
                               purpose: String) throws(LibraryError) -> Header {
        let rows = try connection.query("""
            SELECT (SELECT user_version FROM pragma_user_version),
                (SELECT application_id FROM pragma_application_id), (SELECT count(*) FROM sqlite_schema)
            """, purpose: purpose) { (row) throws(LibraryError) in
            (version: row.int(0), application: row.int(1), objects: row.int(2))
        }
        return rows.first ?? (0, 0, 0)
    }

    /// True when the library is current; false when it needs migrations; throws when it must not be touched.
    static func checkHeader(path: String, _ header: Header) throws(LibraryError) -> Bool {
        let empty = header.application == 0 && header.version == 0 && header.objects == 0
        if header.application != Int(applicationID) && !empty {
            throw .notALibrary(path: path, reason: "it is an SQLite database of another program")
        }
        if header.version > migrations.count {
            throw .newerSchema(path: path, found: header.version, supported: migrations.count)
        }
        return header.version == migrations.count
    }
}

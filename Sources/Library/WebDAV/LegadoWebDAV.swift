import BookRuleJSON
import Foundation

/// The bridge between the library and a Legado app's WebDAV folder: restore a backup zip into the library,
/// write the library as a backup zip Legado restores, and exchange each book's reading progress
/// (`bookProgress/`) both ways by Legado's rule. Used by `bookrule webdav` and by `bookrule serve --webdav`.
public struct LegadoWebDAV: Sendable {
    /// The WebDAV folder (Legado's root: the URL plus `webDavDir`).
    public let client: WebDAVClient
    /// The library file; its replace rules and the files kept from a backup are beside it.
    public let libraryPath: String

    /// The folder of progress files, under the root.
    public static let progressFolder = "bookProgress"

    /// A bridge between `client`'s folder and the library at `libraryPath`.
    public init(client: WebDAVClient, libraryPath: String) {
        self.client = client
        self.libraryPath = libraryPath
    }

    /// Where the files of a restored backup that bookrule does not use are kept, to be written back.
    public var keptFolder: String { LibraryStore.folder(ofLibraryAt: libraryPath) + "/legado-backup" }

    // MARK: - Restore

    /// The backups in the folder (`backup*.zip`), newest first (by modification time, then by name).
    public func backups() async throws(WebDAVSyncError) -> [WebDAVEntry] {
        let entries = try await webDAV { () async throws(WebDAVError) in try await client.list() }
        return entries.filter { !$0.isFolder && $0.name.hasPrefix("backup") && $0.name.lowercased().hasSuffix(".zip") }
            .sorted {
                let left = $0.lastModified ?? .distantPast
                let right = $1.lastModified ?? .distantPast
                return left != right ? left > right : $0.name > $1.name
            }
    }

    /// Restores the backup `name` (the newest when nil) into the library: sources by URL, books by source and
    /// URL, replace rules by id, the other files kept; each book's progress is the furthest of the library's,
    /// the backup's and its `bookProgress/` file. One library transaction: when anything fails, nothing changed.
    public func restore(name: String? = nil, store: LibraryStore) async throws(WebDAVSyncError) -> WebDAVRestoreReport {
        try restore(try await fetchBackup(name: name), store: store)
    }

    /// Reads the backup `name` (the newest when nil) from the server, each book's progress the further of the
    /// backup's and its `bookProgress/` file, without touching the library: what `restore(_:store:)` merges.
    /// A caller that must not create a library for nothing (a wrong password, no backup) reads first.
    public func fetchBackup(name: String? = nil) async throws(WebDAVSyncError) -> WebDAVFetchedBackup {
        let chosen: String
        if let name {
            chosen = name
        } else {
            guard let newest = try await backups().first else { throw .noBackup(url: client.rootURL) }
            chosen = newest.name
        }
        let zip = try await webDAV { () async throws(WebDAVError) in try await client.download(chosen) }
        var backup: LegadoBackup
        do throws(LegadoBackupError) {
            backup = try LegadoBackup(zip: zip)
        } catch {
            throw .backup(error)
        }
        // Progress files of the backup's books, where they are further.
        let remote = try await remoteProgress(for: backup.books.map { ($0.name, $0.author) })
        var fromFiles = 0
        for index in backup.books.indices {
            let book = backup.books[index]
            guard let file = remote[LegadoBookProgress.fileName(name: book.name, author: book.author)],
                  file.name == book.name, file.author == book.author, file.isFurther(than: book.progress) else { continue }
            backup.books[index].progress = file.progress
            fromFiles += 1
        }
        return WebDAVFetchedBackup(name: chosen, backup: backup, progressFromFiles: fromFiles)
    }

    /// Merges a backup read with `fetchBackup` into the library, as `restore(name:store:)` says.
    public func restore(_ fetched: WebDAVFetchedBackup, store: LibraryStore) throws(WebDAVSyncError) -> WebDAVRestoreReport {
        let backup = fetched.backup
        // Replace rules merged by id (a rule without one is added unless the same rule is kept already).
        let rulesPath = ReplaceRuleSet.path(forLibraryAt: libraryPath)
        var rules: ReplaceRuleSet
        do throws(ReplaceRuleError) {
            rules = try ReplaceRuleSet.load(from: rulesPath)
        } catch {
            throw .replaceRules(error)
        }
        var rulesAdded = 0
        for rule in backup.replaceRules {
            if let id = rule.id, let index = rules.rules.firstIndex(where: { $0.id == id }) {
                rules.rules[index] = rule
            } else if !rules.rules.contains(rule) {
                rules.rules.append(rule)
                rulesAdded += 1
            }
        }
        var sideFailure: WebDAVSyncError?
        let summary: LibraryRestoreSummary
        do throws(LibraryError) {
            summary = try store.restore(books: backup.books, sources: backup.sources, rssSources: backup.rssSources) {
                () throws(LibraryError) in
                do throws(ReplaceRuleError) {
                    try rules.save(to: rulesPath)
                } catch {
                    sideFailure = .replaceRules(error)
                    throw LibraryError.sqlite(path: rulesPath, purpose: "saving the replace rules", code: 0, message: error.description)
                }
                do throws(WebDAVSyncError) {
                    var files = backup.keptFiles
                    files[LegadoBookSettings.fileName] = LegadoBookSettings.merged(LegadoBookSettings.load(from: keptFolder),
                                                                                 with: backup.books)
                    try keep(files)
                } catch {
                    sideFailure = error
                    throw LibraryError.sqlite(path: keptFolder, purpose: "keeping the backup's other files", code: 0, message: error.description)
                }
            }
        } catch {
            throw sideFailure ?? .library(error)
        }
        // An earlier bookrule kept rssSources.json beside the library unchanged; the RSS sources are in the
        // library's table now, and a stale copy would bring back sources deleted since.
        try? FileManager.default.removeItem(atPath: keptFolder + "/" + LegadoBackup.rssSourcesFile)
        return WebDAVRestoreReport(name: fetched.name, summary: summary, progressFromFiles: fetched.progressFromFiles,
                                   replaceRules: backup.replaceRules.count, replaceRulesAdded: rulesAdded,
                                   warnings: backup.warnings, keptFiles: backup.keptFiles.keys.sorted())
    }

    /// Writes each kept file atomically into `keptFolder`, replacing what a restore kept before.
    private func keep(_ files: [String: [UInt8]]) throws(WebDAVSyncError) {
        guard !files.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: keptFolder, withIntermediateDirectories: true)
        } catch {
            throw .keptFiles(path: keptFolder, reason: "\(error)")
        }
        for (name, bytes) in files where LegadoBackup.keptFileNames.contains(name) || name == LegadoBookSettings.fileName {
            do throws(LocalFile.Failure) {
                try LocalFile.writeAtomically(bytes, to: keptFolder + "/" + name)
            } catch {
                throw .keptFiles(path: error.path, reason: error.reason)
            }
        }
    }

    // MARK: - Backup

    /// The name Legado gives a backup made on `date`: `backup<yyyy-MM-dd>.zip`, or `backup<date>-<device>.zip`
    /// with a device name, with `\ / : * ? " < > |` made `_` (its `normalizeFileName`).
    public static func backupName(date: Date, device: String? = nil, timeZone: TimeZone = .current) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        let parts = calendar.dateComponents([.year, .month, .day], from: date)
        let day = String(format: "%04d-%02d-%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1)
        let device = device?.trimmingCharacters(in: .whitespaces) ?? ""
        let name = device.isEmpty ? "backup\(day).zip" : "backup\(day)-\(device).zip"
        let unsafe: Set<Character> = ["\\", "/", ":", "*", "?", "\"", "<", ">", "|"]
        return String(name.map { unsafe.contains($0) ? "_" : $0 })
    }

    /// The library as a backup zip in Backup.kt's layout: `bookshelf.json`, `bookSource.json`,
    /// `rssSources.json` and `replaceRule.json` as Gson writes Legado's entities, and the files kept from the last
    /// restore unchanged.
    public func backupZip(store: LibraryStore) throws(WebDAVSyncError) -> [UInt8] {
        let books: [StoredBook]
        let progress: [Int64: ReadingProgress]
        let sources: [BookSourceRecord]
        let rssSources: [RssSourceRecord]
        var shelf: [JSONValue] = []
        do throws(LibraryError) {
            books = try store.books()
            progress = try store.readingProgress()
            sources = try store.storedSources()
            rssSources = try store.storedRssSources()
            let types = Dictionary(sources.map { source in
                (source.sourceURL, (try? JSONParser.parse(source.json, lenient: true))?.value.objectValue?["bookSourceType"]?.value.intValue ?? 0)
            }, uniquingKeysWith: { first, _ in first })
            let settings = LegadoBookSettings.load(from: keptFolder)
            for book in books {
                let chapters = try store.chapters(bookID: book.id).filter(\.inTOC)
                let entity = LegadoBook(book: book, progress: progress[book.id], tocLength: chapters.count,
                                        latestChapterTitle: chapters.last(where: { !$0.isVolume })?.title,
                                        type: LegadoBook.bookType(sourceType: types[book.sourceURL] ?? 0)).json
                shelf.append(LegadoBookSettings.applied(settings[book.url], to: entity))
            }
        } catch {
            throw .library(error)
        }
        let rules: ReplaceRuleSet
        do throws(ReplaceRuleError) {
            rules = try ReplaceRuleSet.load(from: ReplaceRuleSet.path(forLibraryAt: libraryPath))
        } catch {
            throw .replaceRules(error)
        }
        let base = Int(LibraryStore.milliseconds(Date()))
        let ruleEntities = rules.rules.enumerated().map { LegadoReplaceRule(rule: $0.element, id: $0.element.id ?? base + $0.offset).json }
        var files: [(name: String, bytes: [UInt8])] = []
        if !shelf.isEmpty { files.append(("bookshelf.json", JSONWriter.bytes(LegadoJSON.array(shelf)))) }
        let sourceEntities = sources.compactMap { LegadoBookSource.entity(json: $0.json) }
        if !sourceEntities.isEmpty { files.append(("bookSource.json", JSONWriter.bytes(LegadoJSON.array(sourceEntities)))) }
        let rssEntities = try keptLegacyRssSources(besides: rssSources).map(\.json) + rssSources.map(\.json)
        let rssObjects = rssEntities.compactMap { LegadoRssSource.entity(json: $0) }
        if !rssObjects.isEmpty { files.append((LegadoBackup.rssSourcesFile, JSONWriter.bytes(LegadoJSON.array(rssObjects)))) }
        if !ruleEntities.isEmpty { files.append(("replaceRule.json", JSONWriter.bytes(LegadoJSON.array(ruleEntities)))) }
        for name in LegadoBackup.keptFileNames.sorted() {
            let path = keptFolder + "/" + name
            guard FileManager.default.fileExists(atPath: path) else { continue }
            do throws(LocalFile.Failure) {
                files.append((name, try LocalFile.readRegularFile(path, limit: LegadoZip.maxEntryBytes)))
            } catch {
                throw .keptFiles(path: path, reason: error.reason)
            }
        }
        do throws(LegadoBackupError) {
            return try LegadoZip.archive(files)
        } catch {
            throw .backup(error)
        }
    }

    /// The RSS sources of an `rssSources.json` an earlier bookrule kept beside the library (before they had a
    /// table) that the library does not hold, so a backup made after an upgrade loses none of them.
    private func keptLegacyRssSources(besides kept: [RssSourceRecord]) throws(WebDAVSyncError) -> [RssSourceRecord] {
        let path = keptFolder + "/" + LegadoBackup.rssSourcesFile
        guard FileManager.default.fileExists(atPath: path) else { return [] }
        let bytes: [UInt8]
        do throws(LocalFile.Failure) {
            bytes = try LocalFile.readRegularFile(path, limit: LegadoZip.maxEntryBytes)
        } catch {
            throw .keptFiles(path: path, reason: error.reason)
        }
        let urls = Set(kept.map(\.sourceURL))
        do throws(LegadoBackupError) {
            return try LegadoBackup.rssSources(in: bytes, file: path).filter { !urls.contains($0.sourceURL) }
        } catch {
            throw .keptFiles(path: path, reason: error.description)
        }
    }

    /// Uploads the library as a backup: the folder made when missing (MKCOL), the zip PUT under a temporary
    /// name, then moved to its name without overwriting (MOVE, `Overwrite: F`). A backup of that name made
    /// elsewhere is never replaced: the zip gets the next free name (`…-2.zip`, `…-3.zip`), which the report says.
    public func backup(store: LibraryStore, date: Date = Date(), device: String? = nil) async throws(WebDAVSyncError) -> WebDAVBackupReport {
        let zip = try backupZip(store: store)
        let client = client
        let exists = try await webDAV { () async throws(WebDAVError) in try await client.folderExists() }
        if !exists {
            try await webDAV { () async throws(WebDAVError) in try await client.makeFolder("") }
        }
        let wanted = Self.backupName(date: date, device: device)
        let temporary = ".bookrule-upload-\(UUID().uuidString).tmp"
        try await webDAV { () async throws(WebDAVError) in
            try await client.upload(zip, to: temporary, contentType: "application/zip")
        }
        let stem = String(wanted.dropLast(4))
        for attempt in 1...50 {
            let name = attempt == 1 ? wanted : "\(stem)-\(attempt).zip"
            let moved: Bool
            do throws(WebDAVError) {
                moved = try await client.move(temporary, to: name)
            } catch {
                try? await client.delete(temporary)
                throw .webDAV(error)
            }
            if moved { return WebDAVBackupReport(name: name, wantedName: wanted, bytes: zip.count) }
        }
        try? await client.delete(temporary)
        throw .webDAV(.unexpectedStatus(method: "MOVE", url: client.url(for: wanted), status: 412))
    }

    // MARK: - Progress

    /// The progress files on the server for these books (name and author), by file name; none when the
    /// folder does not exist.
    func remoteProgress(for books: [(name: String, author: String)]) async throws(WebDAVSyncError) -> [String: LegadoBookProgress] {
        let client = client
        let listing: [WebDAVEntry]
        do throws(WebDAVError) {
            listing = try await client.list(Self.progressFolder)
        } catch {
            if case .folderMissing = error { return [:] }
            throw .webDAV(error)
        }
        let present = Set(listing.filter { !$0.isFolder }.map(\.name))
        var found: [String: LegadoBookProgress] = [:]
        for book in books {
            let name = LegadoBookProgress.fileName(name: book.name, author: book.author)
            guard present.contains(name), found[name] == nil else { continue }
            let bytes = try await webDAV { () async throws(WebDAVError) in try await client.downloadIfPresent(Self.progressFolder + "/" + name) }
            if let bytes, let progress = LegadoBookProgress(json: bytes) { found[name] = progress }
        }
        return found
    }

    /// Every book's progress both ways by Legado's rule: a server file further than the library's is taken
    /// into the library; a library progress further than the server's (or with no file there) is written to
    /// `bookProgress/<name>_<author>.json`. Books with the same name and author share one file, as in Legado.
    public func syncProgress(store: LibraryStore) async throws(WebDAVSyncError) -> WebDAVProgressReport {
        let books: [StoredBook]
        var local: [Int64: ReadingProgress]
        do throws(LibraryError) {
            books = try store.books()
            local = try store.readingProgress()
        } catch {
            throw .library(error)
        }
        let remote = try await remoteProgress(for: books.map { ($0.name, $0.author) })
        var report = WebDAVProgressReport()
        var pushed = Set<String>()
        var folderReady = !remote.isEmpty
        for book in books {
            let name = LegadoBookProgress.fileName(name: book.name, author: book.author)
            let file = remote[name].flatMap { $0.name == book.name && $0.author == book.author ? $0 : nil }
            if let file, file.isFurther(than: local[book.id]) {
                do throws(LibraryError) {
                    try store.saveProgress(bookID: book.id, file.progress)
                } catch {
                    throw .library(error)
                }
                local[book.id] = file.progress
                report.pulled.append(book.name)
            } else if let mine = local[book.id], file.map({ LegadoBookProgress.isFurther(mine, than: $0.progress) }) ?? true,
                      !pushed.contains(name) {
                if !folderReady {
                    try await webDAV { () async throws(WebDAVError) in try await client.makeFolder(Self.progressFolder) }
                    folderReady = true
                }
                try await push(LegadoBookProgress(name: book.name, author: book.author, progress: mine))
                pushed.insert(name)
                report.pushed.append(book.name)
            }
        }
        return report
    }

    /// Writes one book's progress to its file (as Legado does while reading), making the folder when missing.
    public func push(_ progress: LegadoBookProgress) async throws(WebDAVSyncError) {
        let client = client
        let path = Self.progressFolder + "/" + progress.fileName
        do throws(WebDAVError) {
            try await client.upload(progress.json, to: path, contentType: "application/json")
        } catch {
            guard case .folderMissing = error else { throw .webDAV(error) }
            try await webDAV { () async throws(WebDAVError) in
                try await client.makeFolder(Self.progressFolder)
                try await client.upload(progress.json, to: path, contentType: "application/json")
            }
        }
    }

    private func webDAV<Value>(_ body: () async throws(WebDAVError) -> Value) async throws(WebDAVSyncError) -> Value {
        do throws(WebDAVError) {
            return try await body()
        } catch {
            throw .webDAV(error)
        }
    }
}

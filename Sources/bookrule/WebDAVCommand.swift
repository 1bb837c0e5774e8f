import BookRule
import Foundation

/// `bookrule webdav`: the library and the Legado app's WebDAV folder (docs/webdav.md): restore its backup,
/// write a backup it restores, exchange reading progress, forget the kept password.
struct WebDAVCommand: Command {
    /// How a WebDAV account's key in the login vault begins (`webdav:` and the folder's root URL), so `logout
    /// --all`, which forgets sources' logins, can leave the accounts alone.
    static let vaultPrefix = "webdav:"

    static let helps = [CommandHelp(
        name: "webdav", summary: "Restore, back up and sync with the Legado app's WebDAV folder (backups, reading progress)",
        usage: [
            "bookrule webdav restore --url URL [--dir legado] [--user NAME] [--name BACKUP.zip] [--toc] [--library PATH]",
            "bookrule webdav backup  --url URL [--dir legado] [--user NAME] [--device NAME] [--library PATH]",
            "bookrule webdav sync    --url URL [--dir legado] [--user NAME] [--library PATH]",
            "bookrule webdav forget  --url URL [--dir legado]",
        ],
        about: """
        The Legado app keeps its backups (backup<date>.zip) and each book's reading progress (bookProgress/) in a
        WebDAV folder: the server URL plus the folder set in the app (legado unless changed).
          restore  Restore the newest backup (or --name): its books onto the shelf with their sources, its replace
                   rules, and each book's progress where it or the book's bookProgress/ file is further; merged,
                   never doubled, all in one library transaction (a failed restore changes nothing). Bookmarks and
                   read records are kept and written back by the next backup.
          backup   Upload the library as a backup the app restores; a backup of the same name made elsewhere is
                   never replaced (this one is then named -2, -3…, and that is said).
          sync     Every book's reading progress both ways, as the app does: the further one wins.
          forget   Remove the password kept for this folder.

        The password is read from BOOKRULE_WEBDAV_PASSWORD, or asked for with the echo off; after the first
        success it is kept encrypted with the logins (docs/login.md), never in the library or a log.
        """,
        groups: [
            OptionGroup([
                .value("--url", "URL", summary: "The WebDAV server (坚果云: https://dav.jianguoyun.com/dav/)"),
                .value("--dir", "NAME", summary: "The folder under it, as set in the app (default legado; \"\" for the URL itself)"),
                .value("--user", "NAME", summary: "The account (kept with the password after the first success)"),
                .value("--name", "FILE", summary: "(restore) The backup to restore instead of the newest"),
                .flag("--toc", summary: "(restore) Read each added book's table of contents now, from its source, through "
                      + "the polite fetcher (otherwise `fetch` or `update` reads it when the book is first fetched)"),
                .value("--device", "NAME", summary: "(backup) Name the backup backup<date>-NAME.zip, as the app's device "
                       + "name does"),
                LibraryOptions.library,
            ]),
            .fetching("Fetching (with --toc)"),
        ],
        subcommands: Action.allCases.map(\.rawValue))]

    /// What the command does with the folder: the first operand.
    enum Action: String, CaseIterable {
        case restore, backup, sync, forget
    }

    /// The subcommand.
    let action: Action
    /// `--url`: the server.
    let url: String
    /// `--dir`: the folder under it (default legado).
    let folder: String
    /// `--user`: the account, nil for the one kept.
    let user: String?
    /// `--name`: the backup `restore` restores instead of the newest.
    let backupName: String?
    /// `--toc`: `restore` reads each added book's table of contents.
    let readsTablesOfContents: Bool
    /// `--device`: the name `backup` adds to the backup's.
    let device: String?
    /// `--library`, `--convert`, `--no-replace` and `--explain`.
    let library: LibraryOptions
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        guard arguments.positionals.count == 1, let action = arguments.positionals.first.flatMap(Action.init(rawValue:))
        else { throw UsageError("webdav takes one of restore, backup, sync or forget") }
        self.action = action
        guard let url = arguments.value("--url") else { throw UsageError("webdav \(action.rawValue) needs --url URL") }
        self.url = url
        folder = arguments.value("--dir") ?? "legado"
        user = arguments.value("--user")
        backupName = arguments.value("--name")
        readsTablesOfContents = arguments.has("--toc")
        device = arguments.value("--device")
        library = try LibraryOptions(arguments)
        fetching = try FetchOptions(arguments)
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let vault = FetchOptions.loginVault()
        let anonymous = try WebDAVClient(url: url, folder: folder, credentials: WebDAVCredentials(user: "", password: ""))
        let key = Self.vaultPrefix + anonymous.rootURL
        if action == .forget {
            let had = try vault.login(forSource: key) != nil
            try vault.save(nil, forSource: key)
            terminal.print(had ? "removed the password kept for \(anonymous.rootURL)" : "no password was kept for \(anonymous.rootURL)")
            return 0
        }
        let (credentials, kept) = try Self.account(user: user, userOption: "--user", vault: vault, key: key, terminal: terminal)
        let client = try WebDAVClient(url: url, folder: folder, credentials: credentials)
        let bridge = LegadoWebDAV(client: client, libraryPath: library.path)
        let status: Int32
        do {
            // Opened (and for a restore created) only once the server has answered: a wrong password or a
            // missing backup leaves no empty library behind.
            status = try await perform(bridge: bridge, terminal: terminal)
        } catch WebDAVSyncError.webDAV(.unauthorized(let url, let user)) {
            if kept {
                try vault.save(nil, forSource: key)
                terminal.error("the kept password was refused, so it is no longer kept")
            }
            throw WebDAVSyncError.webDAV(.unauthorized(url: url, user: user))
        }
        if !kept {
            let info = try JSONWriter.string(["user": credentials.user, "password": credentials.password])
            try vault.save(StoredLogin(info: info), forSource: key)
        }
        return status
    }

    /// The account: `user` (`userOption`'s value, else the kept one) and the password from the environment, the
    /// vault (when it is the same user's) or the terminal; whether it came from the vault.
    private static func account(user given: String?, userOption: String, vault: LoginVault, key: String,
                                terminal: Terminal) throws -> (WebDAVCredentials, kept: Bool) {
        let stored = try vault.login(forSource: key)?.infoFields ?? []
        let storedUser = stored.first { $0.name == "user" }?.value
        let storedPassword = stored.first { $0.name == "password" }?.value
        guard let user = given ?? storedUser, !user.isEmpty else {
            throw UsageError("give the WebDAV account with \(userOption) NAME (it is kept after the first success)")
        }
        if let password = ProcessInfo.processInfo.environment["BOOKRULE_WEBDAV_PASSWORD"], !password.isEmpty {
            return (WebDAVCredentials(user: user, password: password), storedUser == user && storedPassword == password)
        }
        if storedUser == user, let storedPassword, !storedPassword.isEmpty {
            return (WebDAVCredentials(user: user, password: storedPassword), true)
        }
        guard let password = LoginPrompt.ask("WebDAV password for \(user)", secret: true, terminal: terminal), !password.isEmpty else {
            throw UsageError("no WebDAV password: set BOOKRULE_WEBDAV_PASSWORD or type it when asked")
        }
        return (WebDAVCredentials(user: user, password: password), false)
    }

    /// `serve --webdav URL [--webdav-dir NAME] [--webdav-user NAME] [--webdav-every T]`: the folder serve keeps
    /// the reading progress in step with, read once.
    struct ServeSync {
        /// `--webdav`: the server.
        let url: String
        /// `--webdav-dir`: the folder under it (default legado).
        let folder: String
        /// `--webdav-user`: the account, nil for the one kept.
        let user: String?
        /// `--webdav-every`: how often progress is synced both ways, nil for the default.
        let interval: Duration?

        /// The options, nil without `--webdav` (then none of the others may be given).
        static func read(_ arguments: CommandLineArguments) throws(UsageError) -> ServeSync? {
            guard let url = arguments.value("--webdav") else {
                if ["--webdav-dir", "--webdav-user", "--webdav-every"].contains(where: { arguments.value($0) != nil }) {
                    throw UsageError("--webdav-dir, --webdav-user and --webdav-every go with --webdav URL")
                }
                return nil
            }
            var interval: Duration?
            if let every = arguments.value("--webdav-every") {
                guard let value = try? ServeCommand.updateInterval(every) else {
                    throw UsageError("--webdav-every takes a time of at least a minute such as 5m or 1h, not \"\(every)\"")
                }
                interval = value
            }
            return ServeSync(url: url, folder: arguments.value("--webdav-dir") ?? "legado",
                             user: arguments.value("--webdav-user"), interval: interval)
        }

        /// The bridge serve keeps the progress in step with, for the library at `libraryPath`. The password as
        /// `webdav` takes it (environment, vault, terminal).
        func bridge(libraryPath: String, terminal: Terminal) throws -> LegadoWebDAV {
            let anonymous = try WebDAVClient(url: url, folder: folder, credentials: WebDAVCredentials(user: "", password: ""))
            let (credentials, _) = try WebDAVCommand.account(user: user, userOption: "--webdav-user",
                                                             vault: FetchOptions.loginVault(),
                                                             key: WebDAVCommand.vaultPrefix + anonymous.rootURL, terminal: terminal)
            return LegadoWebDAV(client: try WebDAVClient(url: url, folder: folder, credentials: credentials), libraryPath: libraryPath)
        }
    }

    /// Runs the action (not `forget`); its exit status (1 when a table of contents `--toc` asked for could not be
    /// read). The library is opened only once the server has answered.
    private func perform(bridge: LegadoWebDAV, terminal: Terminal) async throws -> Int32 {
        let openLibrary = { try LibraryAccess.open(library.path, create: action == .restore) }
        switch action {
        case .restore:
            let fetched = try await bridge.fetchBackup(name: backupName)
            let store = try openLibrary()
            let report = try bridge.restore(fetched, store: store)
            let summary = report.summary
            terminal.print("restored \(report.name) from \(bridge.client.rootURL) into \(store.path)")
            terminal.print("books: \(summary.added.count) added, \(summary.updated) already there (updated); " +
                           "sources: \(summary.sources); RSS sources: \(summary.rssSources); replace rules: \(report.replaceRules) (\(report.replaceRulesAdded) new)")
            terminal.print("reading progress: \(summary.progressTaken) taken (\(report.progressFromFiles) from bookProgress/)")
            if !summary.skipped.isEmpty {
                terminal.print("left out (no source in the backup or the library, e.g. a book from a local file): " +
                               summary.skipped.joined(separator: ", "))
            }
            if !report.keptFiles.isEmpty {
                terminal.print("kept for the next backup: \(report.keptFiles.joined(separator: ", "))")
            }
            for warning in report.warnings { terminal.error("warning: \(warning)") }
            if readsTablesOfContents {
                return try await readTablesOfContents(of: summary.added, store: store, terminal: terminal)
            }
        case .backup:
            let store = try openLibrary()
            let report = try await bridge.backup(store: store, device: device)
            if report.name != report.wantedName {
                terminal.print("\(report.wantedName) is already there (a backup made elsewhere), so it is left as it is")
            }
            terminal.print("uploaded \(bridge.client.url(for: report.name)) (\(report.bytes) bytes)")
        case .forget:
            // `run` forgets the password before connecting: nothing reaches here.
            break
        case .sync:
            let store = try openLibrary()
            let report = try await bridge.syncProgress(store: store)
            terminal.print("reading progress: \(report.pulled.count) taken from \(bridge.client.rootURL)bookProgress/, " +
                           "\(report.pushed.count) written there")
            for name in report.pulled { terminal.print("  ← \(name)") }
            for name in report.pushed { terminal.print("  → \(name)") }
        }
        return 0
    }

    /// `restore --toc`: each book's table of contents read from its restored source into the library (no
    /// chapter text), through the polite fetcher; 1 when any could not be read (the restore stays).
    private func readTablesOfContents(of bookIDs: [Int64], store: LibraryStore, terminal: Terminal) async throws -> Int32 {
        guard !bookIDs.isEmpty else { return 0 }
        let stack = try fetching.stack(terminal: terminal)
        var status: Int32 = 0
        for id in bookIDs {
            guard let book = try store.book(id: id), let record = try store.storedSource(url: book.sourceURL) else { continue }
            do {
                guard let source = try BookSource.load(bytes: Array(record.json.utf8), path: book.sourceURL).first else { continue }
                let fetch = BookFetch(source: source, transport: stack.transport, pacing: stack.fetcher, store: store)
                // Positions are counted from 1, so 0...0 takes no chapter: the book page and the TOC only.
                for try await _ in fetch.run(bookURL: book.url, range: 0...0) {}
                let chapters = try store.chapters(bookID: id).filter { $0.inTOC && !$0.isVolume }.count
                terminal.print("table of contents of \(book.name): \(chapters) chapters")
            } catch {
                terminal.error("warning: the table of contents of \(book.name) was not read: \(ErrorHint.message(error))")
                status = 1
            }
        }
        return status
    }
}

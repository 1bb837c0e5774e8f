import BookRule
import Foundation

/// `bookrule login` and `bookrule logout`: a source's login (its `loginUrl`, `loginUi` and `loginCheckJs`),
/// kept encrypted under the configuration folder and sent with every request of the source by every command.
struct LoginCommand: Command {
    /// `--source` and `--source-name`, which both names take.
    private static let sourceOptions: [CommandOption] = [
        .value("--source", "FILE", summary: "Book source JSON file (one source or an array)", completes: .source),
        .value("--source-name", "NAME", summary: "Which source of an array file (bookSourceName or bookSourceUrl)"),
    ]

    static let helps = [
        CommandHelp(
            name: "login", summary: "Log in to a source (its loginUrl and loginUi), kept encrypted for every command; --check",
            usage: ["bookrule login --source FILE [--source-name NAME] [--field NAME=VALUE]… [fetching options]",
                    "bookrule login --source FILE --action BUTTON [--field NAME=VALUE]…",
                    "bookrule login --source FILE --list",
                    "bookrule login --source FILE --check"],
            about: """
            login asks for the source's loginUi fields (a password with the echo off; without a terminal, one line per
            field from standard input; --field gives one on the command line), then runs loginUrl: a URL is fetched
            with the fields (posted as a form unless its options give a body), JavaScript runs its login(), which may
            keep headers with source.putLoginHeader. The fields, the headers and the cookies the login leaves are kept
            encrypted (AES-256-GCM) in $XDG_CONFIG_HOME/bookrule/ (default ~/.config/bookrule/), and every command
            sends them with the source's requests; a recording (--record) writes them as REDACTED.
            """,
            groups: [
                OptionGroup(sourceOptions + [
                    .value("--field", "NAME=VALUE", summary: "A loginUi field's value (repeatable); fields not given are "
                           + "asked for, and a field kept from an earlier login is its default with --action", repeats: true),
                    .value("--action", "BUTTON", summary: "Run the loginUi button named BUTTON (its JavaScript) instead of "
                           + "logging in"),
                    .flag("--list", summary: "List the source's loginUi fields and buttons"),
                    .flag("--check", summary: "Fetch the source's page, run its loginCheckJs, and say whether a login is kept"),
                ]),
                .fetching(),
            ]),
        CommandHelp(
            name: "logout", summary: "Remove a source's kept login",
            usage: ["bookrule logout --source FILE | --all"],
            about: """
            logout removes the login `bookrule login` kept for the source (its fields, headers and cookies) from
            $XDG_CONFIG_HOME/bookrule/ (default ~/.config/bookrule/); --all removes every source's.
            """,
            groups: [
                OptionGroup(sourceOptions + [
                    .flag("--all", summary: "Remove every kept login, even a store that no longer opens"),
                ]),
            ]),
    ]

    /// What the command line asks for.
    enum Work {
        /// `logout --all`: every kept login (WebDAV passwords stay, unless the store no longer opens).
        case logOutAll
        /// `action` on the source of `--source FILE` (`--source-name`: which one of an array file).
        case source(path: String, name: String?, action: Action)
    }

    /// What is done with one source's login.
    enum Action {
        /// Log in with the loginUi fields given (`--field`; the rest are asked for), or with `button`
        /// (`--action`) run that loginUi button instead.
        case logIn(fields: [String: String], button: String?)
        /// `--list`: the source's loginUi fields and buttons.
        case listFields
        /// `--check`: whether a login is kept and the source's page answers after its loginCheckJs.
        case check
        /// `logout`: remove the source's kept login.
        case logOut
    }

    /// What the command line asks for, one of the command's kinds of work.
    let work: Work
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        guard arguments.positionals.isEmpty else { throw UsageError("\(name) takes no positional arguments") }
        let path = arguments.value("--source")
        if name == "logout", arguments.has("--all") {
            guard path == nil else { throw UsageError("give --source FILE or --all, not both") }
            work = .logOutAll
        } else {
            guard let path else { throw UsageError("--source FILE is required") }
            let action: Action
            if name == "logout" {
                action = .logOut
            } else if arguments.has("--list") {
                action = .listFields
            } else if arguments.has("--check") {
                action = .check
            } else {
                action = .logIn(fields: try Self.fields(arguments.values("--field")), button: arguments.value("--action"))
            }
            work = .source(path: path, name: arguments.value("--source-name"), action: action)
        }
        fetching = try FetchOptions(arguments)
    }

    func run(terminal: Terminal) async throws -> Int32 {
        let vault = FetchOptions.loginVault()
        guard case .source(let path, let name, let action) = work else {
            try Self.logOutAll(vault: vault, terminal: terminal)
            return 0
        }
        let source = try SourceCommand.pickSource(path: path, name: name, steps: [], terminal: terminal)
        switch action {
        case .logOut:
            try Self.logOut(source, vault: vault, terminal: terminal)
        case .listFields:
            Self.listFields(of: source, terminal: terminal)
        case .check:
            let report = try await engine(for: source, vault: vault, terminal: terminal).checkLogin()
            for message in report.messages { terminal.error(message) }
            terminal.print("login kept for \(source.name): \(report.stored ? "yes" : "no")")
            let checked = report.checked ? "after loginCheckJs" : "(the source has no loginCheckJs)"
            terminal.print("\(report.url): HTTP \(report.status.map(String.init) ?? "?") \(checked)")
            return (report.status.map { (200..<400).contains($0) } ?? false) ? 0 : 1
        case .logIn(let given, let button):
            try await logIn(source, given: given, button: button, vault: vault, terminal: terminal)
        }
        return 0
    }

    /// `logout --all`: removes every source's kept login.
    private static func logOutAll(vault: LoginVault, terminal: Terminal) throws {
        // WebDAV accounts live in the same vault (`webdav:<root>`) but are not sources' logins: kept, unless
        // the store no longer opens, when the whole file goes (it cannot be read to pick from).
        guard let keys = try? vault.sources() else {
            try vault.removeAll()
            terminal.print("removed the kept logins' store, which no longer opened (\(vault.storePath)); WebDAV passwords kept there went with it")
            return
        }
        let webDAV = keys.filter { $0.hasPrefix(WebDAVCommand.vaultPrefix) }
        for key in keys where !key.hasPrefix(WebDAVCommand.vaultPrefix) { try vault.save(nil, forSource: key) }
        terminal.print("removed every kept login (\(keys.count - webDAV.count), \(vault.storePath))"
                       + (webDAV.isEmpty ? "" : "; kept \(webDAV.count) WebDAV password(s): bookrule webdav forget --url URL removes one"))
    }

    /// `logout --source FILE`: removes `source`'s kept login.
    private static func logOut(_ source: BookSource, vault: LoginVault, terminal: Terminal) throws {
        let had = try vault.login(forSource: source.url) != nil
        try vault.save(nil, forSource: source.url)
        terminal.print(had ? "removed the login of \(source.name) (its fields, headers and cookies)"
                           : "no login was kept for \(source.name)")
    }

    /// `login --list`: the source's loginUi fields and buttons, one a line.
    private static func listFields(of source: BookSource, terminal: Terminal) {
        let rules = source.login
        for field in rules.fields {
            let action = field.action.map { " → \($0.prefix(60))" } ?? ""
            terminal.print("\(field.kind.rawValue)\t\(field.name.trimmingCharacters(in: .whitespaces))\(action)")
        }
        if rules.fields.isEmpty { terminal.print("\(source.name) has no loginUi fields") }
    }

    /// The engine that logs in to `source`, its requests through this run's transport stack with the kept logins.
    private func engine(for source: BookSource, vault: LoginVault, terminal: Terminal) throws -> SourceEngine {
        let stack = try fetching.stack(terminal: terminal, logins: vault)
        let wrapped = stack.transport(for: source)
        for warning in wrapped.warnings { terminal.error("warning: \(warning)") }
        // A store that cannot be read stops a login (it would be overwritten), not just warns.
        _ = try vault.login(forSource: source.url)
        return SourceEngine(source: source, connection: wrapped,
                            options: EngineOptions(scriptCacheDirectory: LibraryStore.scriptCacheDirectory(forLibraryAt: LibraryStore.defaultPath())))
    }

    /// Logs in to `source` with the loginUi fields `given` (the others asked for), or with `button` runs that
    /// loginUi button instead (fields not given taking their kept values).
    private func logIn(_ source: BookSource, given: [String: String], button action: String?, vault: LoginVault,
                       terminal: Terminal) async throws {
        let engine = try engine(for: source, vault: vault, terminal: terminal)
        let rules = source.login
        guard rules.canLogIn else {
            let reason = source.problems.first { $0.field.hasSuffix("loginUrl") }.map { ": \($0.reason)" } ?? ""
            throw LoginError.nothingToLogIn(source: source.name + reason)
        }
        let kept = try vault.login(forSource: source.url)?.infoFields ?? []
        var values: [(name: String, value: String)] = []
        for field in rules.inputs {
            if let value = given[field.name] ?? given[field.name.trimmingCharacters(in: .whitespaces)] {
                values.append((field.name, value))
            } else if action != nil, let value = kept.first(where: { $0.name == field.name })?.value {
                values.append((field.name, value))
            } else if action == nil {
                values.append((field.name, LoginPrompt.ask(field.name.trimmingCharacters(in: .whitespaces),
                                                           secret: field.kind == .password, terminal: terminal) ?? ""))
            }
        }
        let unknown = given.keys.filter { name in !rules.inputs.contains { $0.name == name || $0.name.trimmingCharacters(in: .whitespaces) == name } }
        guard unknown.isEmpty else {
            let names = rules.inputs.map { "\"\($0.name)\"" }.joined(separator: ", ")
            throw UsageError("loginUi has no field \(unknown.sorted().map { "\"\($0)\"" }.joined(separator: ", "))"
                             + (names.isEmpty ? "; it has none" : "; its fields are \(names)"))
        }
        let messages: [String]
        if let action {
            messages = try await engine.runLoginButton(action, values: values)
        } else {
            messages = try await engine.logIn(values: values)
        }
        for message in messages { terminal.error(message) }
        if let action {
            terminal.print("ran \(action) of \(source.name)")
        } else {
            terminal.print("logged in to \(source.name); the login is kept encrypted in \(vault.directory)")
        }
    }

    /// `--field NAME=VALUE` values by name.
    private static func fields(_ words: [String]) throws(UsageError) -> [String: String] {
        var fields: [String: String] = [:]
        for word in words {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw UsageError("--field takes NAME=VALUE, not \"\(word)\"")
            }
            fields[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        return fields
    }
}

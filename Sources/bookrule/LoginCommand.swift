import BookRule
import Foundation

/// `bookrule login` and `bookrule logout`: a source's login (its `loginUrl`, `loginUi` and `loginCheckJs`),
/// kept encrypted under the configuration folder and sent with every request of the source by every command.
enum LoginCommand {
    static let help = """
    Usage: bookrule login --source FILE [--source-name NAME] [--field NAME=VALUE]… [fetching options]
           bookrule login --source FILE --action BUTTON [--field NAME=VALUE]…
           bookrule login --source FILE --list
           bookrule login --source FILE --check
           bookrule logout --source FILE | --all

    login asks for the source's loginUi fields (a password with the echo off; without a terminal, one line per
    field from standard input; --field gives one on the command line), then runs loginUrl: a URL is fetched
    with the fields (posted as a form unless its options give a body), JavaScript runs its login(), which may
    keep headers with source.putLoginHeader. The fields, the headers and the cookies the login leaves are kept
    encrypted (AES-256-GCM) in $XDG_CONFIG_HOME/bookrule/ (default ~/.config/bookrule/), and every command
    sends them with the source's requests; a recording (--record) writes them as REDACTED.

    Options:
      --field NAME=VALUE  A loginUi field's value (repeatable); fields not given are asked for, and a
                          field kept from an earlier login is its default with --action
      --action BUTTON     Run the loginUi button named BUTTON (its JavaScript) instead of logging in
      --list              List the source's loginUi fields and buttons
      --check             Fetch the source's page, run its loginCheckJs, and say whether a login is kept
      --all               (logout) Remove every kept login, even a store that no longer opens
    \(FetchOptions.help)
      -h, --help          Show this help
    """

    static func run(_ command: String, _ words: [String], terminal: Terminal) async -> Int32 {
        let arguments: CommandLineArguments
        do {
            arguments = try CommandLineArguments(
                words, valueOptions: FetchOptions.valueNames.union(["--source", "--source-name", "--field", "--action"]),
                flagOptions: FetchOptions.flagNames.union(["--help", "--list", "--check", "--all"]))
            if arguments.has("--help") {
                terminal.print(help)
                return 0
            }
            guard arguments.positionals.isEmpty else { throw UsageError("\(command) takes no positional arguments") }
            let vault = FetchOptions.loginVault()
            if command == "logout" {
                try logout(arguments, vault: vault, terminal: terminal)
                return 0
            }
            return try await login(arguments, vault: vault, terminal: terminal)
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: command))
            return 2
        } catch {
            terminal.error("error: \(ErrorHint.message(error))")
            return ExitStatus(for: error).code
        }
    }

    private static func logout(_ arguments: CommandLineArguments, vault: LoginVault, terminal: Terminal) throws {
        if arguments.has("--all") {
            guard arguments.value("--source") == nil else { throw UsageError("give --source FILE or --all, not both") }
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
            return
        }
        let source = try source(arguments, terminal: terminal)
        let had = try vault.login(forSource: source.url) != nil
        try vault.save(nil, forSource: source.url)
        terminal.print(had ? "removed the login of \(source.name) (its fields, headers and cookies)"
                           : "no login was kept for \(source.name)")
    }

    private static func login(_ arguments: CommandLineArguments, vault: LoginVault, terminal: Terminal) async throws -> Int32 {
        let source = try source(arguments, terminal: terminal)
        let rules = source.login
        if arguments.has("--list") {
            for field in rules.fields {
                let action = field.action.map { " → \($0.prefix(60))" } ?? ""
                terminal.print("\(field.kind.rawValue)\t\(field.name.trimmingCharacters(in: .whitespaces))\(action)")
            }
            if rules.fields.isEmpty { terminal.print("\(source.name) has no loginUi fields") }
            return 0
        }
        let stack = try FetchOptions(arguments).stack(terminal: terminal, logins: vault)
        let wrapped = stack.transport(for: source)
        for warning in wrapped.warnings { terminal.error("warning: \(warning)") }
        // A store that cannot be read stops a login (it would be overwritten), not just warns.
        _ = try vault.login(forSource: source.url)
        let engine = SourceEngine(source: source, connection: wrapped,
                                  options: EngineOptions(scriptCacheDirectory: LibraryStore.scriptCacheDirectory(forLibraryAt: LibraryStore.defaultPath())))
        if arguments.has("--check") {
            let report = try await engine.checkLogin()
            for message in report.messages { terminal.error(message) }
            terminal.print("login kept for \(source.name): \(report.stored ? "yes" : "no")")
            let checked = report.checked ? "after loginCheckJs" : "(the source has no loginCheckJs)"
            terminal.print("\(report.url): HTTP \(report.status.map(String.init) ?? "?") \(checked)")
            return (report.status.map { (200..<400).contains($0) } ?? false) ? 0 : 1
        }
        guard rules.canLogIn else {
            let reason = source.problems.first { $0.field.hasSuffix("loginUrl") }.map { ": \($0.reason)" } ?? ""
            throw LoginError.nothingToLogIn(source: source.name + reason)
        }
        let given = try fields(arguments)
        let kept = try vault.login(forSource: source.url)?.infoFields ?? []
        var values: [(name: String, value: String)] = []
        let action = arguments.value("--action")
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
        return 0
    }

    private static func source(_ arguments: CommandLineArguments, terminal: Terminal) throws -> BookSource {
        guard let path = arguments.value("--source") else { throw UsageError("--source FILE is required") }
        return try SourceCommand.pickSource(path: path, name: arguments.value("--source-name"), steps: [], terminal: terminal)
    }

    /// `--field NAME=VALUE` values by name.
    private static func fields(_ arguments: CommandLineArguments) throws -> [String: String] {
        var fields: [String: String] = [:]
        for word in arguments.values("--field") {
            guard let equals = word.firstIndex(of: "="), equals != word.startIndex else {
                throw UsageError("--field takes NAME=VALUE, not \"\(word)\"")
            }
            fields[String(word[..<equals])] = String(word[word.index(after: equals)...])
        }
        return fields
    }
}

import BookRule
import BookRuleStudio
import Foundation

/// `bookrule studio [SOURCE.json]`: serves the authoring studio on 127.0.0.1 and prints its URL.
struct StudioCommand: Command {
    static let helps = [CommandHelp(
        name: "studio", summary: "Serve the authoring studio (a local web page showing what each rule matches) on 127.0.0.1",
        usage: ["bookrule studio [SOURCE.json] [--fixtures DIR] [--port N] [--live] [options]"],
        about: """
        Serves the authoring studio (docs/studio.md) on 127.0.0.1 only and prints its address with a random
        access token; open it in a browser. The studio shows the source as JSON and as a form, the page of the
        current step with what the focused rule matches marked, the values after cleaning, and runs the chain
        (search -> book -> TOC -> chapter) and `bookrule test` on the fixture. Saving writes SOURCE.json
        atomically and keeps the previous version as SOURCE.json.bak. Without SOURCE.json it starts from a
        template and cannot save. Stop it with Ctrl-C.
        """,
        groups: [
            OptionGroup([
                .value("--fixtures", "DIR", summary: "The fixture directory (site.har, pages.json and saved pages); default "
                       + "Fixtures/<stem>/", completes: .directory),
                .value("--port", "N", summary: "Port to listen on (default 8790; 0 picks a free one)"),
                .flag("--live", summary: "Let steps fetch live through the polite fetcher (and record into the fixture on request)"),
            ]),
            .fetching("Fetching with --live"),
        ],
        operands: .source)]

    /// SOURCE.json, nil to start from a template.
    let sourcePath: String?
    /// `--fixtures`, as given.
    let fixtures: String?
    /// `--port`.
    let port: Int
    /// `--live`: steps may fetch live.
    let live: Bool
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        guard arguments.positionals.count <= 1 else { throw UsageError("give at most one SOURCE.json") }
        sourcePath = arguments.positionals.first
        if let text = arguments.value("--port") {
            guard let value = Int(text), (0...65535).contains(value) else {
                throw UsageError("--port takes a port number from 0 to 65535, not \"\(text)\"")
            }
            port = value
        } else {
            port = 8790
        }
        fetching = try FetchOptions(arguments)
        fixtures = arguments.value("--fixtures")
        live = arguments.has("--live")
    }

    func run(terminal: Terminal) async throws -> Int32 {
        if let fixtures, !FileManager.default.fileExists(atPath: fixtures) {
            terminal.error("error: the fixture directory \(fixtures) does not exist")
            return 2
        }
        let fixtureDirectory = fixtures ?? sourcePath.map { CheckFixture(forSourceFile: $0).directory }
        let server: StudioServer
        do {
            server = try StudioServer(sourcePath: sourcePath, fixtureDirectory: fixtureDirectory, port: port,
                                      fetcher: live ? fetching.fetcher(terminal: terminal) : nil)
        } catch {
            terminal.error("error: \(error)")
            return 2
        }
        terminal.print(server.url)
        terminal.error("bookrule studio: \(sourcePath ?? "a new source (cannot be saved)"); fixture: "
                       + (server.fixtureDirectory ?? "none") + (server.hasCodeEditor ? "" : "; CodeMirror not found, "
                       + "the source is edited in a plain text box (install libjs-codemirror)") + ". Ctrl-C stops it.")
        // The server runs on libmicrohttpd's threads; this task only keeps the process alive.
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(3600))
        }
        server.stop()
        return 0
    }
}

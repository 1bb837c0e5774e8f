import BookRule
import BookRuleStudio
import Foundation

/// `bookrule studio [SOURCE.json]`: serves the authoring studio on 127.0.0.1 and prints its URL.
enum StudioCommand {
    static let help = """
    Usage: bookrule studio [SOURCE.json] [--fixtures DIR] [--port N] [--live] [options]

    Serves the authoring studio (docs/studio.md) on 127.0.0.1 only and prints its address with a random
    access token; open it in a browser. The studio shows the source as JSON and as a form, the page of the
    current step with what the focused rule matches marked, the values after cleaning, and runs the chain
    (search -> book -> TOC -> chapter) and `bookrule test` on the fixture. Saving writes SOURCE.json
    atomically and keeps the previous version as SOURCE.json.bak. Without SOURCE.json it starts from a
    template and cannot save. Stop it with Ctrl-C.

    Options:
      --fixtures DIR      The fixture directory (site.har, pages.json and saved pages); default Fixtures/<stem>/
      --port N            Port to listen on (default 8790; 0 picks a free one)
      --live              Let steps fetch live through the polite fetcher (and record into the fixture on request)
      -h, --help          Show this help

    Fetching with --live:
    \(FetchOptions.help)
    """

    static func run(_ words: [String], terminal: Terminal) async -> Int32 {
        let arguments: CommandLineArguments
        let port: Int
        let fetch: FetchOptions
        do {
            arguments = try CommandLineArguments(
                words, valueOptions: FetchOptions.valueNames.union(["--fixtures", "--port"]),
                flagOptions: FetchOptions.flagNames.union(["--help", "--live"]))
            if arguments.has("--help") {
                terminal.print(help)
                return 0
            }
            guard arguments.positionals.count <= 1 else { throw UsageError("give at most one SOURCE.json") }
            if let text = arguments.value("--port") {
                guard let value = Int(text), (0...65535).contains(value) else {
                    throw UsageError("--port takes a port number from 0 to 65535, not \"\(text)\"")
                }
                port = value
            } else {
                port = 8790
            }
            fetch = try FetchOptions(arguments)
        } catch {
            terminal.error(UsageMessage.text(error, command: "studio"))
            return 2
        }
        let sourcePath = arguments.positionals.first
        let fixtures = arguments.value("--fixtures") ?? sourcePath.map { CheckFixture(forSourceFile: $0).directory }
        if let given = arguments.value("--fixtures"), !FileManager.default.fileExists(atPath: given) {
            terminal.error("error: the fixture directory \(given) does not exist")
            return 2
        }
        let server: StudioServer
        do {
            server = try StudioServer(sourcePath: sourcePath, fixtureDirectory: fixtures, port: port,
                                      fetcher: arguments.has("--live") ? fetch.fetcher(terminal: terminal) : nil)
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

import BookRule
import BookRuleServe
import Dispatch
import Foundation

/// `bookrule serve`: Legado's web API over the library, for Legado's own web client and its other clients.
struct ServeCommand: Command {
    static let helps = [CommandHelp(
        name: "serve", summary: "Serve the library with Legado's web API, for Legado's web client (bookshelf, reader, sources)",
        usage: ["bookrule serve [--library PATH] [--sources FILE|DIR…] [--port 1122] [--listen ADDR] [--web DIR]",
                "               [--token T] [--host NAME…] [--prefetch N] [--update-every T]",
                "               [--webdav URL [--webdav-dir legado] [--webdav-user NAME] [--webdav-every T]] [options]"],
        about: """
        Serves the library with Legado's web API (docs/serve.md): the bookshelf, tables of contents, chapter
        text (saved text, or fetched through the polite fetcher and saved), reading progress, the library's book
        sources and replace rules. Legado's web client runs against it unmodified: give its built files with
        --web and open the printed address. E-readers (KOReader, Calibre, Thorium) browse and download the books
        from the OPDS catalog at /opds. Stop it with Ctrl-C or SIGTERM (requests in flight finish first).
        """,
        groups: [
            OptionGroup([
                LibraryOptions.library,
                .value("--sources", "PATH", summary: "A source file or a folder of them, imported into the library; repeat it",
                       completes: .source, repeats: true),
                .value("--port", "N", summary: "HTTP port (default 1122; 0 picks a free one); the WebSocket server uses the "
                       + "next one"),
                .value("--listen", "ADDR", summary: "Address to listen on (default 127.0.0.1; ::1, 0.0.0.0, :: or one of this "
                       + "machine's)"),
                .value("--web", "DIR", summary: "A built web client (Legado's vue/ folder) to serve at /vue/", completes: .directory),
                .value("--token", "T", summary: "The access token (default: none on 127.0.0.1, a random one on any other address)"),
                .value("--host", "NAME", summary: "A name clients reach the server by besides ADDR (a reverse proxy's); repeat it",
                       repeats: true),
                .value("--update-every", "T", summary: "Bring every book up to date every T (6h, 30m, 1d; at least 1m), as "
                       + "`update --all`"),
                .value("--prefetch", "N", summary: "Chapters after the one opened to fetch and save in the background (default 2; "
                       + "0: none)"),
                .value("--webdav", "URL", summary: "Keep reading progress in step with the Legado app's WebDAV folder "
                       + "(docs/webdav.md): every book's both ways at start and every --webdav-every T (default 5m), and a "
                       + "book's written soon after a client saves it; the password as `webdav` takes it"),
                .value("--webdav-dir", "NAME", summary: "The folder under URL, as set in the app (default legado)"),
                .value("--webdav-user", "NAME", summary: "The WebDAV account (default: the one kept by `bookrule webdav`)"),
                .value("--webdav-every", "T", summary: "How often progress is synced both ways (at least 1m; default 5m)"),
            ]),
            .fetching(),
        ])]

    /// `--library`, `--convert`, `--no-replace` and `--explain`.
    let library: LibraryOptions
    /// `--sources`: source files and folders imported into the library.
    let sourcePaths: [String]
    /// `--port`.
    let port: UInt16
    /// `--listen`.
    let listenAddress: String
    /// `--web`: a built web client.
    let webDirectory: String?
    /// `--token`.
    let token: String?
    /// `--host`: names clients reach the server by besides the address.
    let hostNames: [String]
    /// `--prefetch`: chapters after the one opened fetched in the background.
    let prefetch: Int
    /// `--update-every`.
    let updateEvery: Duration?
    /// `--webdav` and its companions, nil without `--webdav`.
    let webDAV: WebDAVCommand.ServeSync?
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        guard arguments.positionals.isEmpty else {
            throw UsageError("serve takes no arguments besides its options (\"\(arguments.positionals[0])\")")
        }
        var port = ServeDefaults.httpPort
        if let text = arguments.value("--port") {
            guard let value = UInt16(text), value < .max else {
                throw UsageError("--port takes a port number from 0 to 65534 (the WebSocket server takes the next one), not \"\(text)\"")
            }
            port = value
        }
        self.port = port
        if let token = arguments.value("--token"), token.count < 16 {
            throw UsageError("--token needs at least 16 characters (a guessable token protects nothing)")
        }
        token = arguments.value("--token")
        var prefetch = ServeDefaults.prefetchChapters
        if let text = arguments.value("--prefetch") {
            guard let value = Int(text), (0...50).contains(value) else {
                throw UsageError("--prefetch takes a number of chapters from 0 to 50, not \"\(text)\"")
            }
            prefetch = value
        }
        self.prefetch = prefetch
        updateEvery = try arguments.value("--update-every").map(Self.updateInterval)
        fetching = try FetchOptions(arguments)
        library = try LibraryOptions(arguments)
        sourcePaths = arguments.values("--sources")
        listenAddress = arguments.value("--listen") ?? ServeDefaults.listenAddress
        webDirectory = arguments.value("--web")
        hostNames = arguments.values("--host")
        webDAV = try WebDAVCommand.ServeSync.read(arguments)
    }

    func run(terminal: Terminal) async throws -> Int32 {
        var configuration: ServeConfiguration
        do {
            configuration = ServeConfiguration(
                libraryPath: library.path, sourcePaths: sourcePaths, port: port, listenAddress: listenAddress,
                webDirectory: webDirectory, token: token, hostNames: hostNames,
                transport: try fetching.stack(terminal: terminal), prefetchChapters: prefetch, updateInterval: updateEvery,
                updateReport: { terminal.error("bookrule serve: \($0)") })
            configuration.webDAV = try webDAV?.bridge(libraryPath: configuration.libraryPath, terminal: terminal)
            configuration.webDAVInterval = webDAV?.interval ?? .seconds(300)
        } catch {
            // Setting up (the WebDAV account included) is part of reading the command line, as it always was.
            terminal.error(UsageMessage.text(error, command: "serve"))
            return 2
        }
        let server: ReadingServer
        do {
            server = try ReadingServer(configuration: configuration)
        } catch {
            terminal.error("error: \(error)")
            return 2
        }
        for warning in server.warnings { terminal.error("warning: \(warning)") }
        terminal.print(server.url)
        terminal.error("bookrule serve: \(configuration.libraryPath) on port \(server.port)"
                       + (server.token == nil ? "" : "; every request needs the token (open the address above once)")
                       + ". Ctrl-C or SIGTERM stops it.")
        terminal.error("bookrule serve: e-readers' OPDS catalog: \(server.catalogURL)"
                       + (server.token == nil ? "" : " (user bookrule, the token as password)"))
        await StopSignal.wait()
        await server.stop()
        terminal.error("bookrule serve: stopped")
        return 0
    }
}

extension ServeCommand {
    /// `--update-every`'s value: a whole number and a unit (s, m, h, d), at least one minute.
    static func updateInterval(_ text: String) throws(UsageError) -> Duration {
        let units: [Character: Int64] = ["s": 1, "m": 60, "h": 3600, "d": 86_400]
        guard let unit = text.last.flatMap({ units[$0] }), let count = Int64(text.dropLast()), count > 0,
              count <= 366 * 86_400 / unit, count * unit >= 60 else {
            throw UsageError("--update-every takes a time of at least a minute such as 30m, 6h or 1d, not \"\(text)\"")
        }
        return .seconds(count * unit)
    }
}

/// Waits for SIGTERM or SIGINT (either stops the server; the requests in flight finish first).
enum StopSignal {
    static func wait() async {
        let (stream, continuation) = AsyncStream<Void>.makeStream()
        let sources = [SIGTERM, SIGINT].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { continuation.yield() }
            source.resume()
            return source
        }
        for await _ in stream { break }
        for source in sources { source.cancel() }
    }
}

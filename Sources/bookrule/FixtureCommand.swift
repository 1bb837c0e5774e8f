import BookRule
import Foundation

/// `bookrule fixture add`: builds or extends a HAR fixture from saved pages, one page at a time.
struct FixtureCommand: Command {
    static let helps = [CommandHelp(
        name: "fixture", summary: "Build a HAR fixture from saved pages (fixture add)",
        usage: ["bookrule fixture add HAR URL FILE [--method POST --body BODY] [--content-type TYPE] [--status N]"],
        about: """
        Adds FILE (a saved page; - reads standard input) to the HAR file as the recorded answer to URL, creating the
        HAR (and its directory) when it does not exist and replacing an entry that answers the same request. The
        HAR is written atomically. `bookrule test` and --replay then answer URL with the page, byte for byte.
        """,
        groups: [
            OptionGroup([
                .value("--method", "METHOD", summary: "The request method the page answers (default GET)"),
                .value("--body", "BODY", summary: "The POST body the page answers, exactly as the source sends it (e.g. "
                       + "searchkey=%D0%C7)"),
                .value("--content-type", "TYPE", summary: "The Content-Type to replay (e.g. \"text/html; charset=gbk\"); "
                       + "default none, so the page's <meta> decides"),
                .value("--status", "N", summary: "The status to replay (default 200)"),
            ]),
        ],
        operands: .file, subcommands: ["add"])]

    /// `add HAR URL FILE`, nil when no subcommand was given (the help is then shown on standard error).
    let add: Add?

    /// What `fixture add` adds.
    struct Add {
        /// HAR: the recording added to (created when missing).
        let harPath: String
        /// URL: the request the page answers.
        let url: String
        /// FILE: the saved page (- for standard input).
        let file: String
        /// `--method`, upper-cased (POST by default with `--body`, else GET).
        let method: String
        /// `--body`: the POST body the page answers.
        let body: String?
        /// `--content-type` to replay.
        let contentType: String?
        /// `--status` to replay.
        let status: Int
    }

    init(name: String, arguments: CommandLineArguments) throws {
        guard let subcommand = arguments.positionals.first else {
            add = nil
            return
        }
        guard subcommand == "add" else {
            throw UsageError("unknown fixture command \"\(subcommand)\" (the command is: add)")
        }
        guard arguments.positionals.count == 4 else { throw UsageError("give HAR URL FILE after add") }
        let url = arguments.positionals[2]
        guard URLReference.isHTTP(url) else { throw UsageError("\"\(url)\" is not an absolute http(s) URL") }
        let body = arguments.value("--body")
        let method = (arguments.value("--method") ?? (body == nil ? "GET" : "POST")).uppercased()
        guard ["GET", "POST", "HEAD"].contains(method) else { throw UsageError("--method takes GET or POST, not \"\(method)\"") }
        if method == "GET" && body != nil { throw UsageError("--body needs --method POST") }
        add = Add(harPath: arguments.positionals[1], url: url, file: arguments.positionals[3], method: method, body: body,
                  contentType: arguments.value("--content-type"),
                  status: try arguments.positiveInt("--status", default: 200, maximum: 599))
    }

    func run(terminal: Terminal) async throws -> Int32 {
        guard let add else {
            terminal.error(Self.helps[0].text)
            return 2
        }
        do {
            let page = try SavedPage.read(add.file, url: add.url, method: add.method, requestBody: add.body.map { Array($0.utf8) },
                                          contentType: add.contentType, status: add.status)
            var recording = FileManager.default.fileExists(atPath: add.harPath)
                ? try HARRecording.load(contentsOf: add.harPath) : HARRecording()
            let replaced = recording.add(page, url: add.url)
            let parent = (add.harPath as NSString).deletingLastPathComponent
            if !parent.isEmpty { try LocalFile.makeDirectories(parent) }
            try recording.write(to: add.harPath)
            terminal.error("\(replaced ? "replaced" : "added") \(add.method) \(add.url) (\(page.body.count) bytes from \(page.file)) "
                           + "in \(add.harPath); it holds \(recording.entries.count) exchange(s)")
            return 0
        } catch let error as UsageError {
            throw error
        } catch {
            // A page or a recording that cannot be read or written: the fixture cannot be built.
            terminal.error("error: \(error)")
            return 2
        }
    }
}

import BookRule
import Foundation

/// `bookrule fixture add`: builds or extends a HAR fixture from saved pages, one page at a time.
enum FixtureCommand {
    static let help = """
    Usage: bookrule fixture add HAR URL FILE [--method POST --body BODY] [--content-type TYPE] [--status N]

    Adds FILE (a saved page; - reads standard input) to the HAR file as the recorded answer to URL, creating the
    HAR (and its directory) when it does not exist and replacing an entry that answers the same request. The HAR is written
    atomically. `bookrule test` and --replay then answer URL with the page, byte for byte.

    Options:
      --method METHOD     The request method the page answers (default GET)
      --body BODY         The POST body the page answers, exactly as the source sends it (e.g. searchkey=%D0%C7)
      --content-type TYPE The Content-Type to replay (e.g. "text/html; charset=gbk"); default none, so the
                          page's <meta> decides
      --status N          The status to replay (default 200)
      -h, --help          Show this help
    """

    static func run(_ words: [String], terminal: Terminal) -> Int32 {
        let arguments: CommandLineArguments
        do {
            arguments = try CommandLineArguments(words, valueOptions: ["--method", "--body", "--content-type", "--status"],
                                                 flagOptions: ["--help"])
        } catch {
            terminal.error(UsageMessage.text(error, command: "fixture"))
            return 2
        }
        if arguments.has("--help") || arguments.positionals.isEmpty {
            if arguments.has("--help") { terminal.print(help) } else { terminal.error(help) }
            return arguments.has("--help") ? 0 : 2
        }
        do {
            guard arguments.positionals.first == "add" else {
                throw UsageError("unknown fixture command \"\(arguments.positionals[0])\" (the command is: add)")
            }
            guard arguments.positionals.count == 4 else { throw UsageError("give HAR URL FILE after add") }
            let harPath = arguments.positionals[1]
            let url = arguments.positionals[2]
            let file = arguments.positionals[3]
            guard URLReference.isHTTP(url) else { throw UsageError("\"\(url)\" is not an absolute http(s) URL") }
            let method = (arguments.value("--method") ?? (arguments.value("--body") == nil ? "GET" : "POST")).uppercased()
            guard ["GET", "POST", "HEAD"].contains(method) else { throw UsageError("--method takes GET or POST, not \"\(method)\"") }
            if method == "GET" && arguments.value("--body") != nil { throw UsageError("--body needs --method POST") }
            let status = try arguments.positiveInt("--status", default: 200, maximum: 599)
            let page = try SavedPage.read(file, url: url, method: method, requestBody: arguments.value("--body").map { Array($0.utf8) },
                                          contentType: arguments.value("--content-type"), status: status)
            var recording = FileManager.default.fileExists(atPath: harPath) ? try HARRecording.load(contentsOf: harPath) : HARRecording()
            let replaced = recording.add(page, url: url)
            let parent = (harPath as NSString).deletingLastPathComponent
            if !parent.isEmpty { try LocalFile.makeDirectories(parent) }
            try recording.write(to: harPath)
            terminal.error("\(replaced ? "replaced" : "added") \(method) \(url) (\(page.body.count) bytes from \(page.file)) in \(harPath); "
                           + "it holds \(recording.entries.count) exchange(s)")
            return 0
        } catch let error as UsageError {
            terminal.error(UsageMessage.text(error, command: "fixture"))
            return 2
        } catch {
            terminal.error("error: \(error)")
            return 2
        }
    }
}

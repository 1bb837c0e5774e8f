import BookRule
import Foundation

/// `bookrule download`: downloads files (covers, images, audio, anything large) resumably, several at once.
struct DownloadCommand: Command {
    static let helps = [CommandHelp(
        name: "download", summary: "Download files (images, audio, anything large) resumably, several at once",
        usage: ["bookrule download URL... [-o DIR] [--jobs N] [options]"],
        about: """
        Downloads each URL into DIR, several at once: different hosts in parallel, each host paced like every other
        request (one at a time by default). Each file is streamed to NAME.part with a sidecar NAME.part.json and
        takes its name only when complete (and verified, with --sha256). Ctrl-C pauses every download and keeps
        what arrived; run the same command again to continue where each stopped (HTTP ranges; a file that changed
        on the server starts again). A file already complete is not fetched again.

        File names come from the last segment of each URL's path, made safe; a repeated name gets -2, -3… in the
        order the URLs are given. Saved paths are printed on stdout, progress on stderr. Exit status 1 when any
        download failed or was interrupted, 2 for a usage error.
        """,
        groups: [
            OptionGroup([
                .value("-o", "DIR", summary: "Directory for the files (created when missing; default: the current "
                       + "directory)", completes: .directory),
                .value("--jobs", "N", summary: "Most downloads at once (default 4)"),
                .value("--sha256", "HEX", summary: "The SHA-256 the file must have (with a single URL)"),
                .flag("--json", summary: "Every event as a JSON line on stdout (queued, started, progress, restarted, "
                      + "retrying, paused, completed with its path, failed)"),
            ]),
            .fetching(),
        ])]

    /// URL…: the files to download.
    let urls: [String]
    /// `-o DIR`, else the current directory.
    let directory: String
    /// `--jobs N`.
    let jobs: Int
    /// `--sha256 HEX`, lowercased.
    let checksum: String?
    /// `--json`: every event as a JSON line.
    let json: Bool
    /// The fetching options (`--delay`, `--timeout`, `--proxy`, …).
    let fetching: FetchOptions

    init(name: String, arguments: CommandLineArguments) throws {
        urls = arguments.positionals
        guard !urls.isEmpty else { throw UsageError("give at least one URL to download") }
        for url in urls where !MediaDownloadTask.isDownloadableURL(url) {
            throw UsageError("\"\(url)\" is not an http or https URL")
        }
        jobs = try arguments.positiveInt("--jobs", default: 4, maximum: 64)
        checksum = arguments.value("--sha256")?.lowercased()
        if let checksum {
            guard urls.count == 1 else { throw UsageError("--sha256 goes with a single URL") }
            guard checksum.count == 64, checksum.allSatisfy({ $0.isHexDigit }) else {
                throw UsageError("--sha256 takes 64 hexadecimal digits")
            }
        }
        json = arguments.has("--json")
        fetching = try FetchOptions(arguments)
        directory = arguments.value("-o") ?? "."
    }

    func run(terminal: Terminal) async throws -> Int32 {
        do {
            try LocalFile.makeDirectories(directory)
        } catch {
            throw UsageError("cannot use -o \(directory): \(error)")
        }
        let names = MediaFileName.uniqueNames(forURLs: urls)
        let tasks = urls.indices.map { index in
            MediaDownloadTask(
                id: String(index + 1), url: urls[index],
                destination: (directory.hasSuffix("/") ? directory : directory + "/") + names[index],
                expectedSHA256: checksum)
        }
        // The polite fetcher makes one attempt per stream; --max-retries counts the downloader's attempts,
        // each of which continues from the last byte on disk.
        let downloader = MediaDownloader(
            transport: fetching.fetcher(terminal: terminal), jobs: jobs,
            options: MediaDownloader.Options(maxAttempts: fetching.policy.maxAttempts))

        let fileNames = Dictionary(uniqueKeysWithValues: tasks.map { ($0.id, ($0.destination as NSString).lastPathComponent) })
        let display = DownloadProgressDisplay(
            terminal: terminal, live: ProgressDisplay.mode(json: false) == .bar, json: json, names: fileNames)
        let listener = Task {
            for await event in downloader.events {
                display.handle(event)
                if case .completed(_, let path, _, _) = event { display.result(path) }
            }
        }
        // Ctrl-C pauses everything (partial data and sidecars are kept); a second one exits at once.
        let interrupted = FirstAnswer()
        let interrupts = InterruptHandler {
            _ = interrupted.claim()
            Task { await downloader.pauseAll() }
        }
        for task in tasks {
            do {
                try await downloader.add(task)
            } catch {
                terminal.error("error: \(error)")
            }
        }
        if interrupted.isClaimed { await downloader.pauseAll() }
        await downloader.waitUntilIdle()
        interrupts.stop()
        await downloader.finishEvents()
        await listener.value
        display.finish()

        let states = await downloader.snapshot().map(\.state)
        let completed = states.filter { $0 == .completed }.count
        let paused = states.filter { $0 == .paused }.count
        let failed = states.count - completed - paused
        var summary = "\(completed) of \(states.count) file(s) complete"
        if failed > 0 { summary += ", \(failed) failed" }
        if paused > 0 { summary += ", \(paused) paused" }
        terminal.error(summary)
        if paused > 0 || failed > 0 {
            terminal.error("what arrived is kept in \(directory) as NAME.part with NAME.part.json; "
                           + "run the same command again to continue (and to retry what failed)")
        }
        return completed == states.count ? 0 : 1
    }
}

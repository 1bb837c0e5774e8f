import BookRule

/// `--saved`, `--saved-dir` and `--replay`: the answers a command takes from disk instead of the network. Saved pages
/// answer first, a HAR recording the rest; with any of them nothing is fetched live (docs/authoring.md).
struct OfflinePages {
    /// The options, as the help lists them.
    static let options: [CommandOption] = [
        .value("--saved", "FILE", summary: "A saved page (- reads standard input) standing in for the response of the URL "
               + "given (for search: of the search request the source makes); links on it resolve against that URL. "
               + "Nothing is fetched: other URLs fail as \"not saved\". --saved URL=FILE gives a saved page for another URL "
               + "(split at the last =); repeatable", completes: .file, repeats: true),
        .value("--saved-dir", "DIR", summary: "Saved pages listed in DIR/pages.json ({\"URL\": \"file\", …}; see "
               + "docs/authoring.md)", completes: .directory, repeats: true),
        .value("--replay", "HAR", summary: "Answer requests from a HAR recording (after the saved pages, if any)",
               completes: .file),
    ]

    /// What the options ask for, read once; the pages are read when the URL they stand for is known.
    struct Request {
        /// `--saved` values, in order.
        let saved: [String]
        /// `--saved-dir` values.
        let directories: [String]
        /// `--replay`.
        let harPath: String?

        init(_ arguments: CommandLineArguments) {
            saved = arguments.values("--saved")
            directories = arguments.values("--saved-dir")
            harPath = arguments.value("--replay")
        }

        /// Whether anything will answer from disk.
        var isOffline: Bool { !saved.isEmpty || !directories.isEmpty || harPath != nil }
    }

    /// The pages given, read; a page without a URL answers the first request.
    let pages: [SavedPage]
    /// `--replay`.
    let harPath: String?
    /// Whether anything answers from disk (so nothing may go to the network).
    var isOffline: Bool { !pages.isEmpty || harPath != nil }

    /// Reads `--saved` and `--saved-dir`; a bare `--saved FILE` belongs to `commandURL` (nil: the first request).
    init(_ request: Request, commandURL: String?) throws {
        var pages: [SavedPage] = []
        var bare = 0
        for value in request.saved {
            var url = commandURL
            var file = value
            if value.hasPrefix("http://") || value.hasPrefix("https://") {
                guard let equals = value.lastIndex(of: "=") else {
                    throw UsageError("--saved \(value): write --saved URL=FILE (or --saved FILE for the URL of the command)")
                }
                url = String(value[..<equals])
                file = String(value[value.index(after: equals)...])
            } else {
                bare += 1
                guard bare == 1 else { throw UsageError("only one --saved FILE without a URL; give the others as --saved URL=FILE") }
            }
            guard !file.isEmpty else { throw UsageError("--saved \(value) names no file") }
            pages.append(try SavedPage.read(file, url: url))
        }
        for directory in request.directories {
            pages += try SavedPageDirectory.load(directory)
        }
        self.pages = pages
        harPath = request.harPath
    }

    /// Where the scripts of the run keep `cache` values between runs: nowhere when it answers from disk, so
    /// what a script takes from a saved page or a recording never reaches a later live run; else the
    /// library's `script-cache/`.
    func scriptCacheDirectory(forLibraryAt path: String) -> String? {
        isOffline ? nil : LibraryStore.scriptCacheDirectory(forLibraryAt: path)
    }
}

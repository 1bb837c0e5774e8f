import BookRule

/// `--jobs` and `--source-timeout`: how a command that searches a collection of sources (`search --sources`,
/// `fetch --sources`, `sources --find`) spreads its work, read once into the search's options.
enum CollectionSearchOptions {
    /// The options, as the help lists them.
    static let options: [CommandOption] = [
        .value("--jobs", "N", summary: "Sources searched at the same time (default 16); each host is still paced on its own"),
        .value("--source-timeout", "SECONDS", summary: "Longest time one source may take, waiting for its host included "
               + "(default 30)"),
    ]

    /// `--jobs` and `--source-timeout` as the search's options, asking for results page `page`.
    static func read(_ arguments: CommandLineArguments, page: Int = 1) throws(UsageError) -> MultiSourceSearch.Options {
        let jobs = try arguments.positiveInt("--jobs", default: 16, maximum: 1000)
        var timeout = Duration.seconds(30)
        if let text = arguments.value("--source-timeout") {
            timeout = try CommandLineArguments.seconds(text, "--source-timeout")
        }
        return MultiSourceSearch.Options(concurrency: jobs, timeout: timeout, page: page)
    }
}

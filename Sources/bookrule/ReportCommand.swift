import BookRule

/// `bookrule report merge`: joins the JSON reports of several `bookrule test --json` runs (the shards of one
/// collection) into one JSON report, one JUnit report and one summary.
enum ReportCommand {
    static let help = """
    Usage: bookrule report merge REPORT.json... [-o OUT.json] [--junit OUT.xml]

    Joins the reports that `bookrule test --json` printed (e.g. one per --shard K/N) into one array, printed on
    standard output (or written to -o), with the summary table on standard error. Exit status 0 when every
    source passed, 1 when any failed, 2 when a report cannot be read. See docs/scale.md.

    Options:
      -o FILE             Write the joined JSON report to FILE instead of standard output
      --junit FILE        Also write one JUnit XML report for every source
      -h, --help          Show this help
    """

    static func run(_ words: [String], terminal: Terminal) -> Int32 {
        let arguments: CommandLineArguments
        do {
            arguments = try CommandLineArguments(words, valueOptions: ["-o", "--junit"], flagOptions: ["--help"])
            if arguments.has("--help") {
                terminal.print(help)
                return 0
            }
            guard arguments.positionals.first == "merge" else {
                throw UsageError(arguments.positionals.isEmpty ? "give a report command: merge"
                                 : "unknown report command \"\(arguments.positionals[0])\" (the command is: merge)")
            }
            guard arguments.positionals.count >= 2 else { throw UsageError("name at least one JSON report to merge") }
        } catch {
            terminal.error(UsageMessage.text(error, command: "report"))
            return 2
        }
        do {
            let (reports, repeated) = try CheckReportMerge.merge(Array(arguments.positionals.dropFirst()))
            if !repeated.isEmpty {
                terminal.error("warning: \(repeated.count) source(s) are in more than one report (overlapping runs?): "
                               + repeated.prefix(5).joined(separator: ", "))
            }
            let json = try JSONWriter.string(reports, style: .pretty)
            if let output = arguments.value("-o") {
                try LocalFile.writeAtomically(Array((json + "\n").utf8), to: output)
            } else {
                terminal.print(json)
            }
            if let junit = arguments.value("--junit") {
                try LocalFile.writeAtomically(Array(JUnitReport.xml(reports).utf8), to: junit)
            }
            // The table goes to standard error so that standard output stays one JSON document.
            let table = Terminal.capture()
            CheckReportPrinter.summary(reports, style: TextStyle(colour: false), to: table)
            for line in table.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast() { terminal.error(String(line)) }
            return reports.allSatisfy(\.passed) ? 0 : 1
        } catch {
            terminal.error("error: \(error)")
            return 2
        }
    }
}

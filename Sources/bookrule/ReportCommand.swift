import BookRule

/// `bookrule report merge`: joins the JSON reports of several `bookrule test --json` runs (the shards of one
/// collection) into one JSON report, one JUnit report and one summary.
struct ReportCommand: Command {
    static let helps = [CommandHelp(
        name: "report", summary: "Join the JSON reports of several test runs (report merge)",
        usage: ["bookrule report merge REPORT.json... [-o OUT.json] [--junit OUT.xml]"],
        about: """
        Joins the reports that `bookrule test --json` printed (e.g. one per --shard K/N) into one array, printed on
        standard output (or written to -o), with the summary table on standard error. Exit status 0 when every
        source passed, 1 when any failed, 2 when a report cannot be read. See docs/scale.md.
        """,
        groups: [
            OptionGroup([
                .value("-o", "FILE", summary: "Write the joined JSON report to FILE instead of standard output", completes: .file),
                .value("--junit", "FILE", summary: "Also write one JUnit XML report for every source", completes: .file),
            ]),
        ],
        operands: .file, subcommands: ["merge"])]

    /// REPORT.json…: the reports joined.
    let reportPaths: [String]
    /// `-o`: where the joined report goes, nil for standard output.
    let output: String?
    /// `--junit`.
    let junit: String?

    init(name: String, arguments: CommandLineArguments) throws {
        guard arguments.positionals.first == "merge" else {
            throw UsageError(arguments.positionals.isEmpty ? "give a report command: merge"
                             : "unknown report command \"\(arguments.positionals[0])\" (the command is: merge)")
        }
        guard arguments.positionals.count >= 2 else { throw UsageError("name at least one JSON report to merge") }
        reportPaths = Array(arguments.positionals.dropFirst())
        output = arguments.value("-o")
        junit = arguments.value("--junit")
    }

    func run(terminal: Terminal) async throws -> Int32 {
        do {
            let (reports, repeated) = try CheckReportMerge.merge(reportPaths)
            if !repeated.isEmpty {
                terminal.error("warning: \(repeated.count) source(s) are in more than one report (overlapping runs?): "
                               + repeated.prefix(5).joined(separator: ", "))
            }
            let json = try JSONWriter.string(reports, style: .pretty)
            if let output {
                try LocalFile.writeAtomically(Array((json + "\n").utf8), to: output)
            } else {
                terminal.print(json)
            }
            if let junit {
                try LocalFile.writeAtomically(Array(JUnitReport.xml(reports).utf8), to: junit)
            }
            // The table goes to standard error so that standard output stays one JSON document.
            let table = Terminal.capture()
            CheckReportPrinter.summary(reports, style: TextStyle(colour: false), to: table)
            for line in table.output.split(separator: "\n", omittingEmptySubsequences: false).dropLast() { terminal.error(String(line)) }
            return reports.allSatisfy(\.passed) ? 0 : 1
        } catch {
            // A report that cannot be read or a file that cannot be written: exit status 2, as the help says.
            terminal.error("error: \(error)")
            return 2
        }
    }
}

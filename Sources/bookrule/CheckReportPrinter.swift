import BookRule

/// Prints a `CheckReport` for people: a verdict line per source, a line per step, and for failing steps (or
/// with --verbose) every request and rule with its dialect, match count and first values.
struct CheckReportPrinter {
    let style: TextStyle
    let verbose: Bool

    /// `bookrule test`'s output: the reports as JSON or for people (with the table after several), and the
    /// JUnit file when asked; the exit status when one of them cannot be written.
    static func write(_ reports: [CheckReport], json: Bool, verbose: Bool, junit: String?, terminal: Terminal) -> ExitStatus? {
        if json {
            do {
                terminal.print(try JSONWriter.string(reports, style: .pretty))
            } catch {
                terminal.error("error: \(error)")
                return .workFailed
            }
        } else {
            let style = TextStyle.forStandardOutput()
            for report in reports { CheckReportPrinter(style: style, verbose: verbose).print(report, to: terminal) }
            if reports.count > 1 { summary(reports, style: style, to: terminal) }
        }
        if let junit {
            do {
                try LocalFile.writeAtomically(Array(JUnitReport.xml(reports).utf8), to: junit)
            } catch {
                terminal.error("error: cannot write \(junit): \(error)")
                return .cannotRun
            }
        }
        return nil
    }

    func print(_ report: CheckReport, to terminal: Terminal) {
        let verdict = report.passed ? style.green("PASS") : style.red("FAIL")
        let kind = report.failure.map { "  (\($0))" } ?? ""
        terminal.print("\(verdict)  \(style.bold(report.source))  \(style.dim("\(report.origin), \(Self.seconds(report.milliseconds))"))\(kind)")
        for step in report.steps {
            let mark: String
            switch step.status {
            case .passed: mark = style.green("✓")
            case .failed: mark = style.red("✗")
            case .skipped: mark = style.yellow("-")
            }
            var summary = step.error ?? step.checks.first?.detail ?? step.checks.first?.name ?? ""
            if step.error == SourceCheck.missingKeyword { summary += " with --keyword" }
            if step.error == SourceCheck.noSearchURL { summary += " with --book URL" }
            terminal.print("  \(mark) \(step.name.padding(toLength: 13, withPad: " ", startingAt: 0)) \(summary)")
            if let fonts = step.checks.first(where: { $0.name == SourceCheck.webFontCheck }), let detail = fonts.detail,
               !verbose, step.status != .failed {
                terminal.print(style.dim("                  \(detail)"))
            }
            guard verbose || step.status == .failed else { continue }
            for request in step.requests {
                let status = request.status.map(String.init) ?? "---"
                let decoding = request.decoding.map { ", \($0)" } ?? ""
                terminal.print(style.dim("      \(request.method) \(request.finalURL) → \(status), \(request.bytes) bytes\(decoding), \(Self.milliseconds(request.milliseconds))"))
                if let error = request.error { terminal.print("        \(style.red(error))") }
            }
            for rule in step.rules {
                let values = rule.firstValues.isEmpty ? "" : " → " + rule.firstValues.map { "\"\($0)\"" }.joined(separator: ", ")
                let counts = rule.runs > 1 ? "\(rule.matches) value(s) over \(rule.runs) runs, \(rule.emptyRuns) empty" : "\(rule.matches) match(es)"
                let line = "      \(rule.field) [\(rule.dialect ?? "?")] \(counts)\(values)"
                terminal.print(rule.error != nil || rule.matches == 0 ? style.yellow(line) : line)
                if let error = rule.error { terminal.print("        \(style.red(error))") }
            }
            for check in step.checks {
                let mark = check.passed ? style.green("✓") : style.red("✗")
                terminal.print("      \(mark) \(check.name)\(check.detail.map { ": \($0)" } ?? "")")
            }
        }
        if let comparison = report.snapshotComparison {
            if comparison.written {
                terminal.print("  \(style.green("✓")) snapshot      written to \(comparison.path)")
            } else if comparison.matches {
                terminal.print("  \(style.green("✓")) snapshot      matches \(comparison.path)")
            } else {
                terminal.print("  \(style.red("✗")) snapshot      differs from \(comparison.path) (run with --update to accept):")
                for line in comparison.diff {
                    let painted = line.hasPrefix("-") ? style.red(line) : line.hasPrefix("+") ? style.green(line) : style.dim(line)
                    terminal.print("      \(painted)")
                }
            }
        }
    }

    /// The table after many sources: one line each, then the totals.
    static func summary(_ reports: [CheckReport], style: TextStyle, to terminal: Terminal) {
        terminal.print("")
        // Names are measured in terminal columns: a Chinese source name takes two per character.
        let width = min(40, reports.map { DisplayWidth.columns($0.source) }.max() ?? 10)
        for report in reports {
            let verdict = report.passed ? style.green("PASS") : style.red("FAIL")
            let failed = report.steps.filter { $0.status == .failed }.map(\.name)
                + (report.snapshotComparison?.matches == false ? ["snapshot"] : [])
            let name = DisplayWidth.columns(report.source) > width
                ? DisplayWidth.prefix(report.source, columns: width - 1) + "…" : report.source
            let padded = name + String(repeating: " ", count: max(0, width - DisplayWidth.columns(name)))
            let kind = report.failure.map { " (\($0))" } ?? ""
            let line = "\(verdict)  \(padded)  \(failed.isEmpty ? "" : "failed: " + failed.joined(separator: ", ") + kind)"
            terminal.print(line.trimmingTrailingSpaces())
        }
        let passed = reports.filter(\.passed).count
        let kinds = FailureKind.allCases.compactMap { kind -> String? in
            let count = reports.filter { $0.failure == kind }.count
            return count == 0 ? nil : "\(count) \(kind)"
        }
        terminal.print("sources: \(passed) passed, \(reports.count - passed) failed" + (kinds.isEmpty ? "" : " (" + kinds.joined(separator: ", ") + ")"))
    }

    static func seconds(_ milliseconds: Double) -> String {
        let tenths = Int((milliseconds / 100).rounded())
        return "\(tenths / 10).\(tenths % 10) s"
    }

    static func milliseconds(_ value: Double) -> String {
        "\(Int(value.rounded())) ms"
    }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}

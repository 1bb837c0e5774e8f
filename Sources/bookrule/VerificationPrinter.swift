import BookRule

/// Prints what `fetch --verify` found: one line per source copy that looks wrong, then a summary line; with
/// `--json`, JSON lines (`{"event": "verification", …}` per finding, `{"event": "verified", …}` last).
enum VerificationPrinter {
    static func print(_ report: VerificationReport, terminal: Terminal, json: Bool) {
        if json {
            for chapter in report.chapters {
                for finding in chapter.findings {
                    terminal.print(ProgressDisplay.json([
                        "event": "verification", "chapter": String(chapter.position + 1), "title": chapter.title,
                        "source": finding.sourceName, "sourceURL": finding.sourceURL, "kind": finding.kind.rawValue,
                        "reason": finding.reason,
                    ]))
                }
            }
            for left in report.leftOut {
                terminal.print(ProgressDisplay.json(["event": "verificationLeftOut", "source": left.name, "reason": left.reason]))
            }
            terminal.print(ProgressDisplay.json([
                "event": "verified", "chapters": String(report.chapters.count), "sources": String(report.sources.count),
                "suspect": String(report.suspect.count),
            ]))
            return
        }
        terminal.print("verify: \(report.chapters.count) chapter(s) compared across \(report.sources.count) source(s) "
                       + "(\(report.sources.joined(separator: ", ")))")
        for left in report.leftOut { terminal.print("  left out \(left.name): \(left.reason)") }
        for chapter in report.chapters {
            for finding in chapter.findings {
                terminal.print("  \(chapter.position + 1). \(chapter.title): \(finding.sourceName) \(verdict(finding.kind)): "
                               + finding.reason)
            }
        }
        let suspect = report.suspect.count
        terminal.print(suspect == 0 ? "verify: the copies agree"
                       : "verify: \(suspect) chapter(s) with a truncated or different copy")
    }

    private static func verdict(_ kind: VerificationReport.Finding.Kind) -> String {
        switch kind {
        case .truncated: "looks truncated"
        case .differentText: "gives a different text"
        case .undecided: "disagrees with the other copy"
        case .unavailable: "did not give it"
        }
    }
}

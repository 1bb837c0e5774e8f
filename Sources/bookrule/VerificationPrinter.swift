import BookRule

/// Prints what `fetch --verify` found: one line per source copy that looks wrong, then a summary line; with
/// `--json`, JSON lines (`{"event": "verification", …}` per finding, `{"event": "verified", …}` last).
enum VerificationPrinter {
    static func print(_ report: VerificationReport, terminal: Terminal, json: Bool) {
        if json {
            for chapter in report.chapters {
                for finding in chapter.findings {
                    terminal.print(ProgressDisplay.json([
                        "event": .string("verification"), "chapter": ProgressDisplay.number(chapter.position + 1),
                        "title": .string(chapter.title), "source": .string(finding.sourceName),
                        "sourceURL": .string(finding.sourceURL), "kind": .string(finding.kind.rawValue),
                        "reason": .string(finding.reason),
                    ]))
                }
            }
            for left in report.leftOut {
                terminal.print(ProgressDisplay.json(["event": .string("verificationLeftOut"), "source": .string(left.name),
                                                     "reason": .string(left.reason)]))
            }
            terminal.print(ProgressDisplay.json([
                "event": .string("verified"), "chapters": ProgressDisplay.number(report.chapters.count),
                "sources": ProgressDisplay.number(report.sources.count), "suspect": ProgressDisplay.number(report.suspect.count),
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

import BookRuleDocument

/// Renders check reports as JUnit XML (the schema CI systems read: Jenkins, GitLab, GitHub actions reporters):
/// one `<testsuite>` per source, one `<testcase>` per step, a `<failure>` for a failed step and `<skipped/>` for
/// a skipped one (its `type` is the `FailureKind`: unreachable, blocked, http-error, rule-broke, could-not-check).
public enum JUnitReport {
    /// The XML document for `reports`.
    public static func xml(_ reports: [CheckReport]) -> String {
        var xml = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        let failures = reports.reduce(0) { $0 + failureCount($1) }
        let tests = reports.reduce(0) { $0 + testCount($1) }
        let seconds = reports.reduce(0.0) { $0 + $1.milliseconds } / 1000
        xml += "<testsuites name=\"bookrule test\" tests=\"\(tests)\" failures=\"\(failures)\" errors=\"0\" time=\"\(format(seconds))\">\n"
        for report in reports {
            let skipped = report.steps.filter { $0.status == .skipped }.count
            xml += "  <testsuite name=\"\(XMLText.escaped(report.source))\" tests=\"\(testCount(report))\" failures=\"\(failureCount(report))\""
            xml += " errors=\"0\" skipped=\"\(skipped)\" time=\"\(format(report.milliseconds / 1000))\">\n"
            xml += "    <properties>\n"
            xml += "      <property name=\"bookSourceUrl\" value=\"\(XMLText.escaped(report.sourceURL))\"/>\n"
            xml += "      <property name=\"origin\" value=\"\(XMLText.escaped(report.origin))\"/>\n"
            xml += "    </properties>\n"
            for step in report.steps {
                xml += "    <testcase classname=\"\(XMLText.escaped(report.source))\" name=\"\(XMLText.escaped(step.name))\" time=\"\(format(step.milliseconds / 1000))\""
                switch step.status {
                case .passed:
                    xml += "/>\n"
                case .skipped:
                    xml += ">\n      <skipped message=\"\(XMLText.escaped(step.error ?? ""))\"/>\n    </testcase>\n"
                case .failed:
                    let failed = step.checks.filter { !$0.passed }
                    let message = step.error ?? failed.map(\.name).joined(separator: "; ")
                    var details = failed.map { "\($0.name): \($0.detail ?? "")" }
                    details += step.rules.filter { $0.error != nil || $0.matches == 0 }
                        .map { "\($0.field) [\($0.dialect ?? "?")] matched \($0.matches)\($0.error.map { ": " + $0 } ?? "")" }
                    xml += ">\n      <failure message=\"\(XMLText.escaped(message))\" type=\"\((step.failure ?? .ruleBroke).rawValue)\">\(XMLText.escaped(details.joined(separator: "\n")))</failure>\n    </testcase>\n"
                }
            }
            if let comparison = report.snapshotComparison {
                xml += "    <testcase classname=\"\(XMLText.escaped(report.source))\" name=\"snapshot\" time=\"0\""
                if comparison.matches {
                    xml += "/>\n"
                } else {
                    xml += ">\n      <failure message=\"differs from \(XMLText.escaped(comparison.path))\" type=\"snapshot\">"
                    xml += XMLText.escaped(comparison.diff.joined(separator: "\n")) + "</failure>\n    </testcase>\n"
                }
            }
            xml += "  </testsuite>\n"
        }
        xml += "</testsuites>\n"
        return xml
    }

    private static func testCount(_ report: CheckReport) -> Int {
        report.steps.count + (report.snapshotComparison == nil ? 0 : 1)
    }

    private static func failureCount(_ report: CheckReport) -> Int {
        report.steps.filter { $0.status == .failed }.count + (report.snapshotComparison?.matches == false ? 1 : 0)
    }

    private static func format(_ seconds: Double) -> String {
        let milliseconds = Int((seconds * 1000).rounded())
        let fraction = String(milliseconds % 1000)
        return "\(milliseconds / 1000)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

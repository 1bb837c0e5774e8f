// PCRE2 through BookRule's RegexPattern against Foundation's NSRegularExpression (ICU), in one run, on the two
// jobs regexes do in book sources: an AllInOne list rule over a whole TOC page, and a content clean-up
// (`replaceRegex`) over chapter text. Both sides must agree on the result.
import BookRule
import Foundation

enum RegexBenchmark {
    struct Job {
        let name: String
        let pattern: String
        let subject: String
        let replacement: String?
    }

    static func run(tocPage path: String, iterations: Int) throws {
        guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
        let page = String(decoding: data, as: UTF8.self)
        // About 40 KB of chapter text: paragraphs with the ad lines and markup a replaceRegex strips.
        var chapter = ""
        for index in 0..<400 {
            chapter += "　　第\(index)段，星河在夜空中缓缓流动，少年抬头看着远方。\n"
            if index % 25 == 0 { chapter += "笔趣阁 www.example-novel.test 最新章节请收藏本站&nbsp;<br/>\n" }
        }
        let jobs = [
            Job(name: "allinone-toc", pattern: "<dd><a href=\"([^\"]*)\">([^<]*)</a></dd>", subject: page, replacement: nil),
            Job(name: "replace-content", pattern: "(?m)^.*(笔趣阁|最新章节|请收藏).*$|&nbsp;|<br\\s*/?>",
                subject: chapter, replacement: ""),
        ]
        for job in jobs { try measure(job, iterations: iterations) }
    }

    private static func measure(_ job: Job, iterations: Int) throws {
        let pcre = try RegexPattern(job.pattern)
        let ns = try NSRegularExpression(pattern: job.pattern)
        let replacement = JavaReplacement(job.replacement ?? "")
        func bookrule() throws -> Int {
            if job.replacement != nil {
                return try pcre.replacingMatches(in: job.subject, with: replacement).utf8.count
            }
            return try pcre.allMatches(in: job.subject).reduce(0) { $0 + ($1[1]?.utf8.count ?? 0) + ($1[2]?.utf8.count ?? 0) }
        }
        func foundation() -> Int {
            let range = NSRange(job.subject.startIndex..., in: job.subject)
            if let template = job.replacement {
                return ns.stringByReplacingMatches(in: job.subject, range: range, withTemplate: template).utf8.count
            }
            let subject = job.subject as NSString
            return ns.matches(in: job.subject, range: range).reduce(0) { sum, match in
                sum + subject.substring(with: match.range(at: 1)).utf8.count + subject.substring(with: match.range(at: 2)).utf8.count
            }
        }
        let expected = try bookrule()
        let reference = foundation()
        if expected != reference { fail("\(job.name): bookrule gives \(expected), NSRegularExpression \(reference)") }
        var ours: [Double] = []
        var theirs: [Double] = []
        let clock = ContinuousClock()
        for _ in 0..<iterations {
            var start = clock.now
            _ = try bookrule()
            ours.append(milliseconds(clock.now - start))
            start = clock.now
            _ = foundation()
            theirs.append(milliseconds(clock.now - start))
        }
        ours.sort()
        theirs.sort()
        let ratio = ours[ours.count / 2] / theirs[theirs.count / 2]
        print("regex \(job.name) bookrule median_ms=\(format(ours[ours.count / 2])) min_ms=\(format(ours[0])) "
            + "nsregularexpression median_ms=\(format(theirs[theirs.count / 2])) min_ms=\(format(theirs[0])) "
            + "ratio_median=\(format(ratio))x checksum=\(expected)")
    }

    private static func milliseconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
    }

    private static func format(_ value: Double) -> String { String(format: "%.3f", value) }
}

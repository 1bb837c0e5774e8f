import Foundation
import BookRuleJSON

/// Joins the JSON reports (`bookrule test --json`) of several runs, such as the shards of one collection, into
/// one list, from which one JUnit report and one summary are made.
public enum CheckReportMerge {
    /// Why a report file could not be joined.
    public enum Failure: Error, Sendable, CustomStringConvertible {
        /// The file could not be read.
        case cannotRead(path: String, reason: String)
        /// The file is not an array of reports as `bookrule test --json` writes them.
        case notAReport(path: String, reason: String)

        /// What went wrong, naming the file.
        public var description: String {
            switch self {
            case .cannotRead(let path, let reason): return "\(path): cannot read the report: \(reason)"
            case .notAReport(let path, let reason): return "\(path): not a report of bookrule test --json: \(reason)"
            }
        }
    }

    /// The joined reports of `paths`, in file order, and the sources reported by more than one file (by
    /// `bookSourceUrl`, then origin), which shards of one collection never are: a sign two runs overlapped.
    public static func merge(_ paths: [String]) throws(Failure) -> (reports: [CheckReport], repeated: [String]) {
        var reports: [CheckReport] = []
        var seen: Set<String> = []
        var repeated: [String] = []
        for path in paths {
            let bytes: [UInt8]
            do {
                bytes = try LocalFile.read(path)
            } catch {
                throw .cannotRead(path: path, reason: error.reason)
            }
            let decoded: [CheckReport]
            do {
                decoded = try JSONDecoder().decode([CheckReport].self, from: Data(bytes))
            } catch {
                throw .notAReport(path: path, reason: Self.reason(error))
            }
            for report in decoded {
                let key = report.sourceURL + "\u{0}" + report.origin
                if !seen.insert(key).inserted { repeated.append("\(report.source) (\(report.origin))") }
            }
            reports += decoded
        }
        return (reports, repeated)
    }

    private static func reason(_ error: any Error) -> String {
        switch error {
        case DecodingError.dataCorrupted(let context): return context.debugDescription
        case DecodingError.keyNotFound(let key, let context):
            return "\(key.stringValue) is missing at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        case DecodingError.typeMismatch(_, let context), DecodingError.valueNotFound(_, let context):
            return "\(context.debugDescription) at \(context.codingPath.map(\.stringValue).joined(separator: "."))"
        default: return "\(error)"
        }
    }
}

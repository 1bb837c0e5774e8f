/// Why a HAR file could not be loaded or written; each description names the file and the problem.
public enum HARError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The file could not be read (missing, unreadable); `reason` is the system's message.
    case cannotRead(path: String, reason: String)
    /// The file is not JSON; `reason` gives the line, column and problem where the parser stopped.
    case notJSON(path: String, reason: String)
    /// The JSON is not the HAR shape expected. `entry` is 1-based (nil for fields outside `log.entries`),
    /// `field` is a dotted path such as `response.content.text`, `problem` says what is wrong with it, and
    /// `line` is where in the file (the field itself, or its enclosing object when the field is missing).
    case invalid(path: String, entry: Int?, field: String, problem: String, line: Int?)
    /// The file could not be written; `reason` is the system's message. The old file, if any, is untouched.
    case cannotWrite(path: String, reason: String)

    /// A message of the form `path: entry 3: response.content.text is not valid base64 (line 120)`.
    public var description: String {
        switch self {
        case .cannotRead(let path, let reason):
            return "\(path): cannot read the HAR file: \(reason)"
        case .notJSON(let path, let reason):
            return "\(path): not a HAR file: invalid JSON at \(reason)"
        case .invalid(let path, let entry, let field, let problem, let line):
            let place = line.map { " (line \($0))" } ?? ""
            if let entry { return "\(path): entry \(entry): \(field) \(problem)\(place)" }
            return "\(path): \(field) \(problem)\(place)"
        case .cannotWrite(let path, let reason):
            return "\(path): cannot write the HAR file: \(reason)"
        }
    }
}

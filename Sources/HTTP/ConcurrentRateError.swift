/// Why a source's `concurrentRate` could not be read.
public enum ConcurrentRateError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A part is not a whole number of milliseconds or requests (letters, a sign, a decimal point, too long).
    case notANumber(String)
    /// `a/b` with `a` = 0: no request could ever start.
    case zeroRequests(String)
    /// `a/b` with `b` = 0: a window of no time limits nothing.
    case zeroWindow(String)
    /// More than one `/`.
    case tooManySlashes(String)

    /// What is wrong and how to write it instead.
    public var description: String {
        let forms = "write \"N\" (one request at a time, N ms apart) or \"a/b\" (at most a requests per b ms)"
        switch self {
        case .notANumber(let text):
            return "concurrentRate \"\(text)\" is not a whole number of milliseconds: \(forms)"
        case .zeroRequests(let text):
            return "concurrentRate \"\(text)\" allows 0 requests: the count before the / must be at least 1"
        case .zeroWindow(let text):
            return "concurrentRate \"\(text)\" has a window of 0 ms: the number after the / must be at least 1"
        case .tooManySlashes(let text):
            return "concurrentRate \"\(text)\" has more than one /: \(forms)"
        }
    }
}

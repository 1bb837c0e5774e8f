import CPCRE2

/// An error from compiling or running a rule's regular expression.
///
/// Every case carries the pattern so a message can point the rule author at the exact regex to fix,
/// and `description` is a sentence that says what went wrong and what to do about it.
public enum RegexError: Error, Equatable, CustomStringConvertible {
    /// The pattern is not a valid PCRE2 regex.
    ///
    /// `message` is PCRE2's own explanation and `offset` is where PCRE2 stopped, in characters (Unicode
    /// scalars) from the start of the pattern, so it points at the right place in a CJK pattern too.
    case compile(pattern: String, message: String, offset: Int)

    /// Matching was abandoned because it exceeded the backtracking step, depth or memory limit
    /// (`RegexLimits`), which protects the engine from patterns with catastrophic backtracking.
    case matchLimitExceeded(pattern: String)

    /// Matching failed for another reason reported by PCRE2 (for example running out of memory).
    /// `code` is the negative PCRE2 error code and `message` PCRE2's text for it.
    case matchFailed(pattern: String, code: Int32, message: String)

    /// A sentence a rule author can act on, quoting the offending pattern.
    public var description: String {
        switch self {
        case let .compile(pattern, message, offset):
            return "invalid regex \"\(pattern)\": \(message) at offset \(offset)"
        case let .matchLimitExceeded(pattern):
            return "regex \"\(pattern)\" gave up: it exceeded the backtracking limit"
                + " (rewrite it to avoid nested repetition)"
        case let .matchFailed(pattern, code, message):
            return "regex \"\(pattern)\" failed while matching: \(message) (PCRE2 error \(code))"
        }
    }

    /// Maps a negative `pcre2_match` result to the matching case.
    static func fromMatch(code: Int32, pattern: String) -> RegexError {
        switch code {
        case PCRE2_ERROR_MATCHLIMIT, PCRE2_ERROR_DEPTHLIMIT, PCRE2_ERROR_HEAPLIMIT:
            return .matchLimitExceeded(pattern: pattern)
        default:
            return .matchFailed(pattern: pattern, code: code, message: pcre2Message(code))
        }
    }
}

/// PCRE2's text for an error code, or a generic fallback when PCRE2 has none.
func pcre2Message(_ code: Int32) -> String {
    var buffer = [UInt8](repeating: 0, count: 256)
    let length = buffer.withUnsafeMutableBufferPointer { out -> Int32 in
        guard let base = out.baseAddress else { return -1 }
        return pcre2_get_error_message_8(code, base, out.count)
    }
    // A negative result means an unknown code (PCRE2_ERROR_BADDATA) or a truncated message
    // (PCRE2_ERROR_NOMEMORY); a truncated message is still NUL-terminated and worth showing.
    if length < 0 {
        let truncated = buffer.prefix { $0 != 0 }
        return truncated.isEmpty ? "unknown PCRE2 error \(code)" : String(decoding: truncated, as: UTF8.self)
    }
    return String(decoding: buffer.prefix(Int(length)), as: UTF8.self)
}

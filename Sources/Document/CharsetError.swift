/// A charset bookrule was asked to use but cannot convert.
public enum CharsetError: Error, Sendable, Equatable, CustomStringConvertible {
    /// iconv on this machine does not know the charset (a typo in a source's `charset` option, usually).
    case unsupported(String)

    public var description: String {
        switch self {
        case .unsupported(let name):
            return "charset \"\(name)\" is not supported (try utf-8, gbk, gb18030 or big5)"
        }
    }
}

/// One alternative of a literal `~=` pattern: the text, and whether `^`/`$` anchor it.
struct CSSLiteralAlternative: Sendable, Equatable {
    var text: String
    var anchoredStart: Bool
    var anchoredEnd: Bool
}

extension StringProtocol {
    /// The string without leading and trailing ASCII spaces, tabs and line breaks.
    func trimmingASCIIWhitespace() -> String {
        trimmingCharacters(in: " \t\r\n\u{0B}\u{0C}")
    }

    /// The string without leading and trailing characters from `set` (compared as Unicode scalars).
    func trimmingCharacters(in set: String) -> String {
        let scalars = Set(set.unicodeScalars)
        let string = String(self)
        let view = string.unicodeScalars
        guard let first = view.firstIndex(where: { !scalars.contains($0) }) else { return "" }
        guard let last = view.lastIndex(where: { !scalars.contains($0) }) else { return "" }
        return String(Substring(view[first...last]))
    }

    /// The string trimmed of ASCII whitespace, NO-BREAK SPACE and IDEOGRAPHIC SPACE, which novel sites use to
    /// indent paragraphs.
    func trimmingParagraphSpace() -> String {
        trimmingCharacters(in: " \t\r\n\u{0B}\u{0C}\u{A0}\u{3000}")
    }
}

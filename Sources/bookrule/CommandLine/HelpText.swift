/// Filling help text into lines, for the options' summaries the help shows beside their synopses.
enum HelpText {
    /// `text`'s words in lines of at most `width` columns, the first after `firstPrefix`, the rest after
    /// `prefix`; a word longer than a line stands alone on its line.
    static func wrap(_ text: String, width: Int, firstPrefix: String, prefix: String) -> [String] {
        var lines: [String] = []
        var line = firstPrefix
        var lineHasWord = false
        for word in text.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let joined = lineHasWord ? line + " " + word : line + word
            if lineHasWord && DisplayWidth.columns(joined) > width {
                lines.append(line)
                line = prefix + word
            } else {
                line = joined
            }
            lineHasWord = true
        }
        lines.append(line)
        return lines
    }
}

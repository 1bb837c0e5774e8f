/// Invisible Unicode format characters (general category Cf: zero-width space U+200B, joiners, bidi marks,
/// U+FEFF…) in JavaScript code. Rhino, which Legado runs sources on, skips them outside string literals as
/// if they were not there; JavaScriptCore refuses them ("Invalid character '\u200b'"). Sources copied from
/// web pages carry them, so code that does not parse is tried again without them.
enum FormatCharacters {
    /// `code` without the format characters outside string and template literals (inside one they are the
    /// string's own text, as in Rhino), or nil when it has none there.
    static func stripped(from code: String) -> String? {
        guard code.unicodeScalars.contains(where: isFormat) else { return nil }
        var result = String.UnicodeScalarView()
        var quote: Unicode.Scalar?
        var escaped = false
        var removed = false
        for scalar in code.unicodeScalars {
            if let open = quote {
                result.append(scalar)
                if escaped {
                    escaped = false
                } else if scalar == "\\" {
                    escaped = true
                } else if scalar == open || (scalar == "\n" && open != "`") {
                    quote = nil
                }
                continue
            }
            if isFormat(scalar) {
                removed = true
                continue
            }
            if scalar == "\"" || scalar == "'" || scalar == "`" { quote = scalar }
            result.append(scalar)
        }
        return removed ? String(result) : nil
    }

    private static func isFormat(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .format
    }
}

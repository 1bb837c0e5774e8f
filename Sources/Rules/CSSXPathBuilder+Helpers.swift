extension CSSXPathBuilder {
    // MARK: Helpers

    /// `translate(expression, 'ABC', 'abc')` for the characters of `needle` that have an upper-case form, so
    /// the comparison ignores case the way Java's `toLowerCase`/`equalsIgnoreCase` do for those characters.
    static func fold(_ expression: String, needle: String) -> String {
        var upper = ""
        var lower = ""
        var seen = Set<Unicode.Scalar>()
        for scalar in needle.unicodeScalars where seen.insert(scalar).inserted {
            let upperForm = String(scalar).uppercased()
            guard upperForm.unicodeScalars.count == 1, let upperScalar = upperForm.unicodeScalars.first,
                  upperScalar != scalar, String(upperScalar).lowercased() == String(scalar) else { continue }
            upper.unicodeScalars.append(upperScalar)
            lower.unicodeScalars.append(scalar)
        }
        if upper.isEmpty { return expression }
        return "translate(\(expression), \(literal(upper)), \(literal(lower)))"
    }

    /// Like `fold`, for ASCII letters only (Java's `(?i)` without UNICODE_CASE).
    static func asciiFold(_ expression: String, needle: String) -> String {
        var upper = ""
        var lower = ""
        var seen = Set<Unicode.Scalar>()
        for scalar in needle.unicodeScalars where ("a"..."z").contains(scalar) && seen.insert(scalar).inserted {
            upper.unicodeScalars.append(Unicode.Scalar(scalar.value - 32)!)
            lower.unicodeScalars.append(scalar)
        }
        if upper.isEmpty { return expression }
        return "translate(\(expression), \(literal(upper)), \(literal(lower)))"
    }

    static func asciiLowercased(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.map { ("A"..."Z").contains($0) ? Unicode.Scalar($0.value + 32)! : $0 }))
    }

    static func endsWith(_ expression: String, _ suffix: String) -> String {
        let length = suffix.unicodeScalars.count
        return "substring(\(expression), string-length(\(expression))-\(length - 1))=\(literal(suffix))"
    }

    /// An XPath string literal; XPath 1.0 has no escapes, so text with both quote kinds becomes `concat(…)`.
    ///
    /// Quotes are looked for among Unicode scalars, not characters: a quote followed by a combining mark
    /// (`'` U+06DC, found by fuzzing) is one `Character` that is not `'`, yet libxml2 ends the literal at it.
    static func literal(_ text: String) -> String {
        let scalars = text.unicodeScalars
        if !scalars.contains("'") { return "'\(text)'" }
        if !scalars.contains("\"") { return "\"\(text)\"" }
        let parts = scalars.split(separator: "'", omittingEmptySubsequences: false).map { "'\(String(String.UnicodeScalarView($0)))'" }
        return "concat(" + parts.joined(separator: ", \"'\", ") + ")"
    }

    /// `self::name`, or a `name()` comparison for names XPath cannot write as a name test.
    static func selfTest(_ name: String) -> String {
        if let test = nameTest(name) { return "self::\(test)" }
        return "name()=\(literal(name))"
    }

    static func attributeReference(_ name: String) -> String {
        if let test = nameTest(name) { return "@\(test)" }
        return "@*[name()=\(literal(name))]"
    }

    /// The name as an XPath NCName test, or nil when it is not one (`fb:like`, `a b`) or not ASCII: libxml2
    /// checks names against XML 1.0's older letter tables, which lack letters Unicode has since (`ٯ`, U+066F,
    /// found by fuzzing), so other names are matched with `name()=` instead, which takes any text.
    static func nameTest(_ name: String) -> String? {
        guard let first = name.unicodeScalars.first else { return nil }
        func isStart(_ scalar: Unicode.Scalar) -> Bool {
            ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || scalar == "_"
        }
        guard isStart(first) else { return nil }
        let valid = name.unicodeScalars.allSatisfy { scalar in
            isStart(scalar) || ("0"..."9").contains(scalar) || scalar == "-" || scalar == "."
        }
        return valid ? name : nil
    }

    /// `a and b`, parenthesising parts that contain `or`.
    static func conjunction(_ parts: [String]) -> String {
        if parts.count == 1 { return parts[0] }
        return parts.map { $0.contains(" or ") ? "(\($0))" : $0 }.joined(separator: " and ")
    }
}

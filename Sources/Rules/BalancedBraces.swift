/// Finds the `}` that closes a `{`, skipping quoted strings: `@put:{…}` objects and `{$.path}` pieces both
/// need it.
enum BalancedBraces {
    /// The index of the `}` that balances the `{` at `open`, skipping quoted strings; `nil` if none.
    static func close(in scalars: [Unicode.Scalar], from open: Int) -> Int? {
        var depth = 0
        var quote: Unicode.Scalar?
        var index = open
        while index < scalars.count {
            let character = scalars[index]
            if let current = quote {
                if character == "\\" {
                    index += 1
                } else if character == current {
                    quote = nil
                }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "{" {
                depth += 1
            } else if character == "}" {
                depth -= 1
                if depth == 0 { return index }
            }
            index += 1
        }
        return nil
    }

    /// The same for a substring: the index of the `}` closing the `{` at its start.
    static func close(in text: Substring) -> String.Index? {
        let scalars = Array(text.unicodeScalars)
        guard let offset = close(in: scalars, from: 0) else { return nil }
        return text.unicodeScalars.index(text.startIndex, offsetBy: offset)
    }
}

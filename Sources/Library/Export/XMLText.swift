/// Text made safe for XML documents: the EPUB's XHTML and OPF files and `bookrule test --junit` reports.
package enum XMLText {
    /// `text` without the characters XML 1.0 forbids (and the C1 controls and noncharacters, see
    /// `ExportText.isAllowed`), with `& < > " '` escaped, so it is safe both as content and in attribute values.
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars where ExportText.isAllowed(scalar) {
            switch scalar {
            case "&": result += "&amp;"
            case "<": result += "&lt;"
            case ">": result += "&gt;"
            case "\"": result += "&quot;"
            case "'": result += "&#39;"
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result
    }
}

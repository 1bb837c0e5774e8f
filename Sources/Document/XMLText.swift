/// Text made safe for XML documents: the EPUB's XHTML and OPF files and `bookrule test --junit` reports. In
/// Document, below both Library (the EPUB) and Check (JUnit), so a check does not pull in the library's storage.
package enum XMLText {
    /// `text` without the characters XML 1.0 forbids (and the C1 controls and noncharacters, see
    /// `isAllowed`), with `& < > " '` escaped, so it is safe both as content and in attribute values.
    package static func escaped(_ text: String) -> String {
        var result = ""
        result.reserveCapacity(text.utf8.count)
        for scalar in text.unicodeScalars where isAllowed(scalar) {
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

    /// Whether `scalar` may stand in XML text: not a C0 control other than tab and line breaks, not U+FFFE or
    /// U+FFFF (which XML 1.0 forbids), and not DEL, a C1 control or another Unicode noncharacter (allowed, but
    /// readers choke on them or show garbage).
    package static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        let value = scalar.value
        switch value {
        case 0x09, 0x0A, 0x0D: return true
        case 0x00...0x1F, 0x7F...0x9F: return false
        case 0xFDD0...0xFDEF: return false
        default: return value & 0xFFFE != 0xFFFE
        }
    }
}

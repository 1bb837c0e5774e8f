/// Cuts a rule into its rule and JavaScript parts as Legado does: `<js>…</js>` blocks (any case, possibly
/// several, anywhere) and `@js:` (any case), which takes everything after it, `<js>` tags included. The text
/// between them, trimmed, is a rule step when it is not empty.
package enum ScriptSplitter {
    /// One part of a rule.
    package enum Part: Equatable, Sendable {
        case rule(String)
        case script(String, ScriptSnippet.Placement)
    }

    /// The parts of `text` in order; a single `.rule` when it holds no JavaScript.
    package static func split(_ text: String) -> [Part] {
        var parts: [Part] = []
        let lower = Array(text.lowercased().utf8)
        let bytes = Array(text.utf8)
        // Lowercasing keeps byte offsets only for ASCII-only case changes; fall back to exact tags otherwise.
        let search = lower.count == bytes.count ? lower : bytes
        var index = 0
        var literalStart = 0
        func flush(upTo end: Int) {
            let piece = String(decoding: bytes[literalStart..<end], as: UTF8.self).trimmingASCIIWhitespace()
            if !piece.isEmpty { parts.append(.rule(piece)) }
        }
        while index < bytes.count {
            if starts(search, at: index, with: "@js:") {
                flush(upTo: index)
                parts.append(.script(String(decoding: bytes[(index + 4)...], as: UTF8.self), .atJS))
                return parts
            }
            if starts(search, at: index, with: "<js>"), let close = find(search, "</js>", from: index + 4) {
                flush(upTo: index)
                parts.append(.script(String(decoding: bytes[(index + 4)..<close], as: UTF8.self), .tag))
                index = close + 5
                literalStart = index
                continue
            }
            index += 1
        }
        flush(upTo: bytes.count)
        return parts
    }

    private static func starts(_ bytes: [UInt8], at index: Int, with needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard index + needle.count <= bytes.count else { return false }
        return bytes[index..<(index + needle.count)].elementsEqual(needle)
    }

    private static func find(_ bytes: [UInt8], _ needle: String, from start: Int) -> Int? {
        var index = start
        while index < bytes.count {
            if starts(bytes, at: index, with: needle) { return index }
            index += 1
        }
        return nil
    }
}

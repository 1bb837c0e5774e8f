#if canImport(Glibc)
import CWideCharacter
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The columns text takes on a terminal, as the C library's `wcwidth` says (Unicode's East Asian Width and
/// zero-width marks, kept current by the system rather than by a table here). A character (grapheme cluster)
/// takes the widest of its scalars: a combining accent adds nothing, an emoji joined with U+200D is one emoji.
enum DisplayWidth {
    /// C.UTF-8, made once: the process's own locale is "C" (no `setlocale` call), in which `wcwidth` knows
    /// only ASCII. A locale object is never changed after it is made, so every thread may use it.
    nonisolated(unsafe) private static let utf8Locale: locale_t? = newlocale(LC_CTYPE_MASK, "C.UTF-8", nil)

    /// The columns `text` takes.
    static func columns<S: StringProtocol>(_ text: S) -> Int {
        inUTF8Locale { text.reduce(0) { $0 + columns(of: $1) } }
    }

    /// The longest start of `text` that fits in `columns` terminal columns.
    static func prefix(_ text: String, columns: Int) -> String {
        inUTF8Locale {
            var used = 0
            var end = text.startIndex
            for index in text.indices {
                used += self.columns(of: text[index])
                if used > columns { break }
                end = text.index(after: index)
            }
            return String(text[..<end])
        }
    }

    private static func columns(of character: Character) -> Int {
        character.unicodeScalars.reduce(0) { widest, scalar in
            let width = Int(wcwidth(wchar_t(bitPattern: scalar.value)))
            // -1 is a control character, or any non-ASCII one where C.UTF-8 is missing: then count one column.
            return max(widest, width >= 0 ? width : (scalar.properties.generalCategory == .control ? 0 : 1))
        }
    }

    /// `body` with this thread's locale switched to C.UTF-8 (`uselocale` is per thread, unlike `setlocale`).
    private static func inUTF8Locale<Result>(_ body: () -> Result) -> Result {
        guard let utf8Locale else { return body() }
        let previous = uselocale(utf8Locale)
        defer { uselocale(previous) }
        return body()
    }
}

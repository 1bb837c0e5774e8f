#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// File names derived from book titles, safe on every common file system and never outside the output
/// directory.
///
/// `make` turns path separators and the characters Windows forbids (`/ \ < > : " | ? *`) into spaces, removes
/// control and bidirectional-override characters, collapses runs of dots (so no `..` survives) and of spaces,
/// trims dots and spaces at both ends (no hidden files), prefixes Windows' reserved device names (`CON`,
/// `NUL`, `COM1`…) with `_`, caps the name at 100 characters and 200 UTF-8 bytes (cutting only between
/// characters), and falls back to `book` when nothing is left.
public enum SafeFileName {
    /// Longest stem, in characters.
    public static let maxCharacters = 100
    /// Longest stem, in UTF-8 bytes (file systems allow 255 for the whole name).
    public static let maxBytes = 200

    /// A safe file name for `title` ending in `.extension` (the extension is kept to ASCII letters and digits,
    /// at most 16; an empty one adds no dot).
    public static func make(_ title: String, extension: String) -> String {
        let stem = safeStem(title)
        let suffix = String(`extension`.unicodeScalars.filter { $0.isASCII && isAlphanumeric($0) }.prefix(16))
        return suffix.isEmpty ? stem : stem + "." + suffix
    }

    /// The absolute path of `make(title, extension:)` inside `directory`, after resolving symbolic links and
    /// `..` in `directory`. Throws `ExportError.unusableDirectory` when the directory does not exist or is not
    /// a directory, and `ExportError.outsideDirectory` if the result would not lie directly inside it (which
    /// `make` never allows, checked all the same).
    public static func path(in directory: String, title: String, extension: String) throws(ExportError) -> String {
        let base = try resolvedDirectory(directory)
        let name = make(title, extension: `extension`)
        let candidate = (base == "/" ? "" : base) + "/" + name
        guard isDirectlyInside(candidate, directory: base), !name.contains("/"), name != ".", name != ".." else {
            throw .outsideDirectory(path: candidate, directory: base)
        }
        return candidate
    }

    /// `directory` with symbolic links and `..` resolved; throws when it is missing or not a directory.
    static func resolvedDirectory(_ directory: String) throws(ExportError) -> String {
        let input = directory.isEmpty ? "." : directory
        guard let resolved = realpath(input, nil) else {
            throw .unusableDirectory(path: input, reason: String(cString: strerror(errno)))
        }
        defer { free(resolved) }
        let path = String(cString: resolved)
        var info = stat()
        guard stat(path, &info) == 0, (info.st_mode & S_IFMT) == S_IFDIR else {
            throw .unusableDirectory(path: input, reason: "not a directory")
        }
        return path
    }

    /// Whether `path` names an entry directly inside the resolved directory `directory`.
    static func isDirectlyInside(_ path: String, directory: String) -> Bool {
        let prefix = directory == "/" ? "/" : directory + "/"
        guard path.hasPrefix(prefix) else { return false }
        let name = path.dropFirst(prefix.count)
        return !name.isEmpty && !name.contains("/") && name != "." && name != ".."
    }

    private static func safeStem(_ title: String) -> String {
        var scalars = String.UnicodeScalarView()
        var lastWasSpace = true  // drops leading spaces
        var lastWasDot = false
        for scalar in title.unicodeScalars {
            let mapped: Unicode.Scalar = isSeparatorLike(scalar) ? " " : scalar
            if mapped != " " && isRemoved(scalar) { continue }
            if mapped == " " {
                if !lastWasSpace { scalars.append(" ") }
                lastWasSpace = true
                lastWasDot = false
            } else if mapped == "." {
                if !lastWasDot { scalars.append(".") }
                lastWasDot = true
                lastWasSpace = false
            } else {
                scalars.append(mapped)
                lastWasSpace = false
                lastWasDot = false
            }
        }
        var stem = trimDotsAndSpaces(String(scalars))
        stem = capped(stem)
        stem = trimDotsAndSpaces(stem)
        if stem.isEmpty { return "book" }
        if isReservedOnWindows(stem) { stem = "_" + stem }
        return stem
    }

    /// Control characters, bidirectional overrides and isolates, zero-width and other invisible format
    /// characters, and noncharacters.
    private static func isRemoved(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.properties.generalCategory {
        case .control, .format, .surrogate, .privateUse, .unassigned, .lineSeparator, .paragraphSeparator:
            return true
        default:
            return scalar.properties.isNoncharacterCodePoint
        }
    }

    /// Path separators, what Windows forbids in names, and every kind of white space (tabs, U+3000…).
    private static func isSeparatorLike(_ scalar: Unicode.Scalar) -> Bool {
        "/\\<>:\"|?*".unicodeScalars.contains(scalar) || scalar.properties.isWhitespace
    }

    private static func isAlphanumeric(_ scalar: Unicode.Scalar) -> Bool {
        ("a"..."z").contains(scalar) || ("A"..."Z").contains(scalar) || ("0"..."9").contains(scalar)
    }

    private static func trimDotsAndSpaces(_ text: String) -> String {
        let isTrimmed: (Character) -> Bool = { $0 == "." || $0 == " " }
        guard let first = text.firstIndex(where: { !isTrimmed($0) }),
              let last = text.lastIndex(where: { !isTrimmed($0) }) else { return "" }
        return String(text[first...last])
    }

    private static func capped(_ text: String) -> String {
        var result = ""
        var bytes = 0
        for character in text.prefix(maxCharacters) {
            let size = character.utf8.count
            guard bytes + size <= maxBytes else { break }
            result.append(character)
            bytes += size
        }
        return result
    }

    private static func isReservedOnWindows(_ stem: String) -> Bool {
        let base = stem.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
        let upper = base.uppercased()
        if ["CON", "PRN", "AUX", "NUL"].contains(upper) { return true }
        guard upper.count == 4, upper.hasPrefix("COM") || upper.hasPrefix("LPT"), let last = upper.last else {
            return false
        }
        return ("1"..."9").contains(last)
    }
}

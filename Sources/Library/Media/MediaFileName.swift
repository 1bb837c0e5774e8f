import Foundation
import BookRuleDocument

/// The names of downloaded media files, written and read here only.
///
/// A chapter's media files (audio and image sources) are `<chapter number>-<identity>-<file number>.<ext>`,
/// e.g. `0007-3fa9c2d1-002.jpg`: the number keeps the folder in reading order; the identity (the first 8 hex
/// digits of the SHA-256 of the chapter's URL without its fragment) keeps a chapter's files its own when the
/// TOC shifts (a retried chapter at a new place must not find another chapter's complete files); the
/// extension comes from the file's URL. Files `bookrule download` fetches are named after their URLs (`make`).
public struct MediaFileName: Sendable, Equatable, CustomStringConvertible {
    /// The chapter's 1-based TOC position.
    public var chapterNumber: Int
    /// Whose files these are: 8 hex digits from the chapter's URL (see `identity(chapterURL:)`).
    public var identity: String
    /// The file's 1-based position among the chapter's files.
    public var fileNumber: Int
    /// The extension, without its dot ("" for none).
    public var fileExtension: String

    /// The name of the `fileNumber`th file of the chapter at `chapterURL`, its extension taken from `fileURL`.
    public init(chapterNumber: Int, chapterURL: String, fileNumber: Int, fileURL: String) {
        self.chapterNumber = chapterNumber
        identity = Self.identity(chapterURL: chapterURL)
        self.fileNumber = fileNumber
        let name = Self.make(forURL: fileURL)
        fileExtension = name.lastIndex(of: ".").map { String(name[name.index(after: $0)...]) } ?? ""
    }

    /// Reads a chapter media file's name; nil for any other file (a `.part` file, a sidecar, a stray file).
    public init?(parsing name: String) {
        guard !name.hasSuffix(".part"), !name.hasSuffix(".part.json") else { return nil }
        let parts = name.split(separator: "-", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0].count >= 4, let chapter = Int(parts[0]), chapter > 0,
              parts[1].count == 8, parts[1].allSatisfy(\.isHexDigit) else { return nil }
        let last = parts[2]
        let dot = last.firstIndex(of: ".")
        let number = dot.map { last[..<$0] } ?? last
        guard number.count >= 3, let file = Int(number), file > 0 else { return nil }
        chapterNumber = chapter
        identity = String(parts[1])
        fileNumber = file
        fileExtension = dot.map { String(last[last.index(after: $0)...]) } ?? ""
    }

    /// The file name.
    public var description: String {
        Self.padded(chapterNumber, 4) + "-" + identity + "-" + Self.padded(fileNumber, 3)
            + (fileExtension.isEmpty ? "" : "." + fileExtension)
    }

    /// The identity part of a chapter's media file names: the first 8 hex digits of the SHA-256 of the
    /// chapter's URL without its fragment.
    public static func identity(chapterURL: String) -> String {
        var hash = SHA256()
        hash.update(Array(URLReference.withoutFragment(chapterURL).utf8))
        return String(hash.hexDigest().prefix(8))
    }

    private static func padded(_ number: Int, _ width: Int) -> String {
        let digits = String(number)
        return String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// A safe name from the last path segment of `url` (`download` when the path has none).
    public static func make(forURL url: String) -> String {
        var path = URLReference.withoutFragment(url)
        if let query = path.firstIndex(of: "?") { path = String(path[..<query]) }
        if let scheme = path.range(of: "://") {
            let rest = path[scheme.upperBound...]
            path = rest.firstIndex(of: "/").map { String(rest[$0...]) } ?? ""
        }
        let segment = path.split(separator: "/").last.map(String.init) ?? ""
        let decoded = segment.removingPercentEncoding ?? segment
        var stem = decoded
        var suffix = ""
        if let dot = decoded.lastIndex(of: "."), dot != decoded.startIndex {
            let candidate = decoded[decoded.index(after: dot)...]
            if (1...16).contains(candidate.count), candidate.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) {
                stem = String(decoded[..<dot])
                suffix = String(candidate)
            }
        }
        if stem.trimmingASCIIWhitespace().isEmpty { stem = "download" }
        return SafeFileName.make(stem, extension: suffix)
    }

    /// Names for `urls` in order, unique regardless of case: a repeated name gets `-2`, `-3`… before its
    /// extension, in the order the URLs are given.
    public static func uniqueNames(forURLs urls: [String]) -> [String] {
        var taken: Set<String> = []
        var names: [String] = []
        for url in urls {
            let name = make(forURL: url)
            var candidate = name
            var number = 2
            while taken.contains(candidate.lowercased()) {
                if let dot = name.lastIndex(of: "."), dot != name.startIndex {
                    candidate = name[..<dot] + "-\(number)" + name[dot...]
                } else {
                    candidate = name + "-\(number)"
                }
                number += 1
            }
            taken.insert(candidate.lowercased())
            names.append(candidate)
        }
        return names
    }
}

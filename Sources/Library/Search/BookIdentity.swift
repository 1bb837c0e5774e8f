import Foundation

/// What makes two search results the same book: the name and the author, normalised so that spacing,
/// punctuation, full-width forms, letter case and decorations such as "（精校版）" or "【完结】" do not count.
public struct BookIdentity: Sendable, Hashable, Codable {
    /// The normalised name.
    public let name: String
    /// The normalised author ("" when the source gave none).
    public let author: String

    /// The identity of a book called `name` by `author`.
    public init(name: String, author: String) {
        self.name = Self.normalised(Self.withoutDecorations(name))
        self.author = Self.normalised(Self.withoutAuthorLabel(author))
    }

    /// NFKC (full-width to half-width), lower case, letters, digits and CJK only.
    static func normalised(_ text: String) -> String {
        let folded = text.precomposedStringWithCompatibilityMapping.lowercased()
        return String(String.UnicodeScalarView(folded.unicodeScalars.filter { scalar in
            CharacterSet.alphanumerics.contains(scalar)
        }))
    }

    /// `name` without bracketed notes at its end: "书名（精校版）", "书名【完结】", "书名[全本]".
    static func withoutDecorations(_ name: String) -> String {
        var text = name.trimmingCharacters(in: .whitespaces)
        let pairs: [(Character, Character)] = [("（", "）"), ("(", ")"), ("【", "】"), ("[", "]"), ("《", "》")]
        while let last = text.last, let pair = pairs.first(where: { $0.1 == last }),
              let open = text.lastIndex(of: pair.0), open != text.startIndex {
            text = String(text[..<open]).trimmingCharacters(in: .whitespaces)
        }
        return text
    }

    /// `author` without a leading "作者：" or "作者:" label that some sources leave in.
    static func withoutAuthorLabel(_ author: String) -> String {
        let text = author.trimmingCharacters(in: .whitespaces)
        for label in ["作者：", "作者:", "作者", "Author:", "author:"] where text.hasPrefix(label) {
            return String(text.dropFirst(label.count))
        }
        return text
    }
}

import Foundation

/// A chapter title reduced to what two sources of one book agree on: the chapter number (第十二章, 第12章,
/// Chapter 12, a leading "12.") and the remaining words, normalised (NFKC so full-width forms are half-width,
/// lower case, letters, digits and CJK only, so punctuation and spacing do not count). A volume prefix
/// (第一卷 …, 卷二, Volume 3) before the chapter number is left out: sources differ in whether they repeat it.
public struct ChapterTitle: Sendable, Hashable, CustomStringConvertible {
    /// The chapter number, nil when the title has none.
    public let number: Int?
    /// The normalised words after the number (or the whole normalised title when there is no number).
    public let words: String

    /// Reads `title`.
    public init(_ title: String) {
        let text = Array(title.precomposedStringWithCompatibilityMapping.lowercased())
        if let (number, end) = Self.chapterNumber(in: text) {
            self.number = number
            words = Self.normalised(text[end...])
        } else {
            number = nil
            words = Self.normalised(text[Self.afterVolumePrefix(text)...])
        }
    }

    public var description: String { (number.map { "#\($0) " } ?? "") + words }

    /// Chapter markers after 第 and its number.
    static let chapterMarkers: Set<Character> = ["章", "节", "節", "回", "话", "話"]
    /// Volume markers after 第 and its number.
    static let volumeMarkers: Set<Character> = ["卷", "部", "篇", "集", "册", "冊"]

    /// The chapter number and where the title's words start, from the first of: 第N章 (any chapter marker),
    /// "chapter N" / "ch. N", or a number at the start (after a volume prefix).
    static func chapterNumber(in text: [Character]) -> (Int, Int)? {
        var index = 0
        while index < text.count {
            if text[index] == "第", let (value, after) = numeral(in: text, from: index + 1),
               after < text.count, chapterMarkers.contains(text[after]) {
                return (value, after + 1)
            }
            index += 1
        }
        for word in ["chapter", "ch."] {
            var start = 0
            while let found = find(word, in: text, from: start) {
                if let (value, after) = numeral(in: text, from: found + word.count, asciiOnly: true) {
                    return (value, after)
                }
                start = found + 1
            }
        }
        let start = afterVolumePrefix(text)
        if let (value, after) = numeral(in: text, from: start, asciiOnly: true),
           after == text.count || !text[after].isLetter || !text[after].isASCII {
            return (value, after)
        }
        return nil
    }

    /// Where the title starts after a volume prefix: 第N卷 (any volume marker), 卷N, "volume N" or "vol. N", and
    /// the volume's own name up to the next space, if the prefix is followed by a space.
    static func afterVolumePrefix(_ text: [Character]) -> Int {
        var index = skipSpaces(text, 0)
        if index < text.count, text[index] == "第", let (_, after) = numeral(in: text, from: index + 1),
           after < text.count, volumeMarkers.contains(text[after]) {
            index = after + 1
        } else if index < text.count, text[index] == "卷", let (_, after) = numeral(in: text, from: index + 1) {
            index = after
        } else if let after = ["volume", "vol.", "vol", "book"].lazy.compactMap({ word -> Int? in
            guard find(word, in: text, from: index) == index else { return nil }
            return numeral(in: text, from: index + word.count)?.1
        }).first {
            index = after
        } else {
            return 0
        }
        return skipSpaces(text, index)
    }

    /// A number starting at `start` (spaces before and after skipped): its value and the index after it.
    static func numeral(in text: [Character], from start: Int, asciiOnly: Bool = false) -> (Int, Int)? {
        var index = skipSpaces(text, start)
        let first = index
        while index < text.count,
              asciiOnly ? (text[index].isASCII && text[index].isNumber) : ChineseNumeral.isNumeral(text[index]) {
            index += 1
        }
        guard index > first, let value = ChineseNumeral.value(String(text[first..<index])[...]) else { return nil }
        return (value, skipSpaces(text, index))
    }

    static func skipSpaces(_ text: [Character], _ start: Int) -> Int {
        var index = start
        while index < text.count, text[index].isWhitespace || text[index] == "." || text[index] == ":" { index += 1 }
        return index
    }

    static func find(_ word: String, in text: [Character], from start: Int) -> Int? {
        let pattern = Array(word)
        guard pattern.count <= text.count, start <= text.count - pattern.count else { return nil }
        for index in start...(text.count - pattern.count) where Array(text[index..<(index + pattern.count)]) == pattern {
            return index
        }
        return nil
    }

    static func normalised(_ text: ArraySlice<Character>) -> String {
        String(String.UnicodeScalarView(String(text).unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }))
    }
}

/// Reads chapter numbers written in Chinese numerals: 十二, 一百零三, 两千, 一千二百三十四, 壹佰贰拾, and digit by
/// digit (一二三, 二〇二四). Also takes ASCII digits, so a caller can hand over whatever stood after 第.
public enum ChineseNumeral {
    static let digits: [Character: Int] = [
        "零": 0, "〇": 0, "○": 0, "一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8,
        "九": 9, "壹": 1, "贰": 2, "貳": 2, "叁": 3, "參": 3, "肆": 4, "伍": 5, "陆": 6, "陸": 6, "柒": 7, "捌": 8,
        "玖": 9,
    ]
    static let units: [Character: Int] = ["十": 10, "拾": 10, "百": 100, "佰": 100, "千": 1000, "仟": 1000]
    static let sections: [Character: Int] = ["万": 10_000, "萬": 10_000, "亿": 100_000_000, "億": 100_000_000]

    /// Whether `character` can be part of a number this type reads.
    public static func isNumeral(_ character: Character) -> Bool {
        character.isASCII && character.isNumber || digits[character] != nil || units[character] != nil
            || sections[character] != nil
    }

    /// The value of `text`, nil when it is empty, holds anything else, or is too large to matter as a chapter.
    public static func value(_ text: Substring) -> Int? {
        guard !text.isEmpty, text.allSatisfy(isNumeral) else { return nil }
        if text.allSatisfy({ $0.isASCII }) { return Int(text) }
        // Without units the numerals are digits in order (一二三 = 123); ASCII digits may be mixed in.
        if !text.contains(where: { units[$0] != nil || sections[$0] != nil }) {
            var value = 0
            for character in text {
                guard let digit = digits[character] ?? character.wholeNumberValue, value < 100_000_000 else { return nil }
                value = value * 10 + digit
            }
            return value
        }
        var total = 0
        var section = 0
        var number = 0
        for character in text {
            if let digit = digits[character] ?? (character.isASCII ? character.wholeNumberValue : nil) {
                number = number * 10 + digit
            } else if let unit = units[character] {
                section += (number == 0 ? 1 : number) * unit
                number = 0
            } else if let unit = sections[character] {
                total += (section + number == 0 ? 1 : section + number) * unit
                section = 0
                number = 0
            }
            guard total < 1_000_000_000_000, number < 1_000_000_000 else { return nil }
        }
        return total + section + number
    }
}

import Foundation

/// How alike two copies of one chapter are, as `fetch --verify` judges them: after normalisation (NFKC, lower
/// case, letters and digits only, so spacing, punctuation, full-width forms and line breaks do not count),
/// each text is cut into overlapping character 4-grams (shingles).
///
/// - `lengthRatio`: the first text's normalised length over the second's.
/// - `overlap`: Jaccard similarity of the two shingle sets (1: the same text, about 0: unrelated texts).
/// - `containment`: the share of the first text's shingles found in the second (near 1 when the first is a
///   cut-off part of the second, whatever its length).
public struct TextComparison: Sendable, Equatable {
    /// The first text's normalised length divided by the second's (0 when the second is empty).
    public var lengthRatio: Double
    /// |A ∩ B| / |A ∪ B| of the shingle sets (1 when both are empty).
    public var overlap: Double
    /// |A ∩ B| / |A| (1 when A is empty).
    public var containment: Double

    /// The shingle length in characters.
    static let shingleLength = 4

    /// Compares `first` with `second`.
    public init(_ first: String, _ second: String) {
        self.init(Shingled(first), Shingled(second))
    }

    /// Compares two texts already normalised and shingled.
    init(_ first: Shingled, _ second: Shingled) {
        lengthRatio = second.length == 0 ? 0 : Double(first.length) / Double(second.length)
        let common = first.shingles.intersection(second.shingles).count
        let union = first.shingles.count + second.shingles.count - common
        overlap = union == 0 ? 1 : Double(common) / Double(union)
        containment = first.shingles.isEmpty ? 1 : Double(common) / Double(first.shingles.count)
    }

    /// A text reduced to what is compared: its normalised length and its shingles.
    struct Shingled: Sendable {
        var length: Int
        var shingles: Set<String>

        init(_ text: String) {
            let folded = text.precomposedStringWithCompatibilityMapping.lowercased()
            let kept = folded.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) }
            let characters = kept.map(Character.init)
            length = characters.count
            var shingles = Set<String>()
            let size = TextComparison.shingleLength
            if characters.count < size {
                if !characters.isEmpty { shingles.insert(String(characters)) }
            } else {
                shingles.reserveCapacity(characters.count - size + 1)
                for start in 0...(characters.count - size) {
                    shingles.insert(String(characters[start..<(start + size)]))
                }
            }
            self.shingles = shingles
        }
    }
}

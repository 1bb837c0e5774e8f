import Foundation

/// An installed font whose glyphs are the references web-font glyphs are recognised against.
public struct ReferenceFont: Sendable, Equatable, Codable {
    /// The font file.
    public var path: String
    /// The face of a collection to use: the first whose family name ends with this (" SC": the simplified
    /// Chinese forms), else the first face.
    public var familySuffix: String

    public init(path: String, familySuffix: String = " SC") {
        self.path = path
        self.familySuffix = familySuffix
    }

    /// Debian's `fonts-noto-cjk`: Noto Sans CJK (Source Han Sans, the Hei face qidian's fonts are cut from) and
    /// Noto Serif CJK (a Song/Ming face), regular weight.
    public static let notoCJK = [
        ReferenceFont(path: "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"),
        ReferenceFont(path: "/usr/share/fonts/opentype/noto/NotoSerifCJK-Regular.ttc"),
    ]

    /// `BOOKRULE_REFERENCE_FONTS` (paths separated by `:`) when set, else Noto CJK; only files that exist.
    public static func installed(environment: [String: String] = ProcessInfo.processInfo.environment) -> [ReferenceFont] {
        let wanted = environment["BOOKRULE_REFERENCE_FONTS"].map {
            $0.split(separator: ":").map { ReferenceFont(path: String($0)) }
        } ?? notoCJK
        // At most 16: each reference face costs its share of the index and of every comparison.
        return Array(wanted.filter { FileManager.default.isReadableFile(atPath: $0.path) }.prefix(16))
    }
}

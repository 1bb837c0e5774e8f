import Glibc

/// The characters a web font's glyph can be recognised as: GB2312's 6,763 Chinese characters, its punctuation
/// and full-width forms, and printable ASCII, each with how common it is (the recogniser prefers the common
/// one of two look-alikes).
struct CandidateCharacters {
    /// How likely a character is in a novel's text, before its look is seen.
    enum Commonness: UInt8 {
        /// GB2312's first level (3,755 characters), ASCII letters and digits, common punctuation.
        case common = 0
        /// GB2312's second level (3,008 rarer characters).
        case rare = 1
        /// Full-width letters, mathematical and other symbols.
        case symbol = 2
        /// Symbols that look like common punctuation in some faces and almost never stand in a novel (the
        /// primes ′ ″, which a Hei face's narrow curly quotes resemble).
        case rareSymbol = 3
    }

    static let primes: Set<UInt32> = [0x2032, 0x2033]

    var scalars: [UInt32] = []
    var commonness: [Commonness] = []

    /// Punctuation a novel uses, whatever GB2312 row it comes from.
    static let commonPunctuation = Set("，。、；：？！“”‘’（）《》〈〉【】「」『』—…·～￥％＃＆＊＠·—－".unicodeScalars.map(\.value))

    static func gb2312() -> CandidateCharacters {
        var candidates = CandidateCharacters()
        var seen = Set<UInt32>()
        func add(_ scalar: UInt32, _ commonness: Commonness) {
            guard seen.insert(scalar).inserted else { return }
            candidates.scalars.append(scalar)
            candidates.commonness.append(commonness)
        }
        for value in UInt32(0x21)...0x7E {
            let letterOrDigit = (0x30...0x39).contains(value) || (0x41...0x5A).contains(value) || (0x61...0x7A).contains(value)
            // ASCII quotes are rare in Chinese text, and a Hei face's proportional curly quotes look like them.
            add(value, letterOrDigit || Self.commonPunctuation.contains(value) || ",.!?;:()-".unicodeScalars.contains(where: { $0.value == value }) ? .common : .symbol)
        }
        let decoder = GB2312Decoder()
        // Row 1 (punctuation and symbols), row 3 (full-width ASCII), rows 16–55 (level 1), 56–87 (level 2).
        for row in [1, 3] + Array(16...87) {
            for cell in 1...94 {
                guard let scalar = decoder.scalar(row: row, cell: cell) else { continue }
                let commonness: Commonness
                switch row {
                case 16...55: commonness = .common
                case 56...87: commonness = .rare
                default:
                    commonness = Self.commonPunctuation.contains(scalar) ? .common
                        : Self.primes.contains(scalar) ? .rareSymbol : .symbol
                }
                add(scalar, commonness)
            }
        }
        return candidates
    }
}

/// GB2312's code table through glibc's iconv, so no table is copied into the source.
private final class GB2312Decoder {
    private let converter: iconv_t?

    init() {
        let converter = iconv_open("UTF-32LE", "GB2312")
        self.converter = converter == iconv_t(bitPattern: -1) ? nil : converter
    }

    deinit {
        if let converter { iconv_close(converter) }
    }

    func scalar(row: Int, cell: Int) -> UInt32? {
        guard let converter else { return nil }
        var input: [CChar] = [CChar(bitPattern: UInt8(0xA0 + row)), CChar(bitPattern: UInt8(0xA0 + cell))]
        var output = [UInt8](repeating: 0, count: 8)
        let written: Int = input.withUnsafeMutableBufferPointer { inputBuffer in
            output.withUnsafeMutableBufferPointer { outputBuffer in
                var inPointer = inputBuffer.baseAddress
                var inLeft = 2
                var outPointer = UnsafeMutableRawPointer(outputBuffer.baseAddress)?.assumingMemoryBound(to: CChar.self)
                var outLeft = 8
                let result = iconv(converter, &inPointer, &inLeft, &outPointer, &outLeft)
                return result == -1 ? 0 : 8 - outLeft
            }
        }
        guard written == 4 else { return nil }
        return UInt32(output[0]) | UInt32(output[1]) << 8 | UInt32(output[2]) << 16 | UInt32(output[3]) << 24
    }
}

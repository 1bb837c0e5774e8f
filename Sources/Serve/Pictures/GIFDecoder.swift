/// The first frame of a GIF (87a or 89a), as Android's decoder gives a GIF cover: Debian has no libgif headers
/// installed here, and a GIF is a small format (colour tables, LZW). The frame is drawn on the logical screen,
/// transparent where it does not reach or its transparent colour is; anything malformed is nil, never a trap.
enum GIFDecoder {
    static func firstFrame(_ bytes: [UInt8]) -> RasterImage? {
        var reader = Reader(bytes: bytes, position: 6)
        guard let screenWidth = reader.uint16(), let screenHeight = reader.uint16(), let packed = reader.byte(),
              reader.skip(2), screenWidth > 0, screenHeight > 0,
              screenWidth * screenHeight <= RasterImage.maximumPixels else { return nil }
        var globalTable: [UInt8] = []
        if packed & 0x80 != 0 {
            guard let table = reader.bytes(3 << (Int(packed & 0x07) + 1)) else { return nil }
            globalTable = table
        }
        var transparent: Int?
        while let introducer = reader.byte() {
            switch introducer {
            case 0x21:
                guard let label = reader.byte() else { return nil }
                if label == 0xF9, let size = reader.byte(), size >= 4, let flags = reader.byte(), reader.skip(2),
                   let index = reader.byte() {
                    transparent = flags & 0x01 != 0 ? Int(index) : nil
                    guard reader.skip(Int(size) - 4) else { return nil }
                }
                guard reader.skipSubBlocks() else { return nil }
            case 0x2C:
                return frame(&reader, screen: (screenWidth, screenHeight), globalTable: globalTable, transparent: transparent)
            default:
                return nil  // the trailer (0x3B) before any frame, or not a GIF block
            }
        }
        return nil
    }

    private static func frame(_ reader: inout Reader, screen: (width: Int, height: Int), globalTable: [UInt8],
                              transparent: Int?) -> RasterImage? {
        guard let left = reader.uint16(), let top = reader.uint16(), let width = reader.uint16(),
              let height = reader.uint16(), let packed = reader.byte(),
              width * height <= RasterImage.maximumPixels else { return nil }
        var table = globalTable
        if packed & 0x80 != 0 {
            guard let local = reader.bytes(3 << (Int(packed & 0x07) + 1)) else { return nil }
            table = local
        }
        guard !table.isEmpty, let minimumCodeSize = reader.byte(), (1...11).contains(minimumCodeSize),
              let data = reader.subBlocks() else { return nil }
        let indexes = lzw(data, minimumCodeSize: Int(minimumCodeSize), count: width * height)
        let rowOrder = packed & 0x40 != 0 ? interlacedRows(height) : Array(0..<height)
        var pixels = [UInt8](repeating: 0, count: screen.width * screen.height * 4)
        for (sourceRow, row) in rowOrder.enumerated() {
            let y = top + row
            guard y < screen.height else { continue }
            for column in 0..<width {
                let x = left + column
                let position = sourceRow * width + column
                guard x < screen.width, position < indexes.count else { continue }
                let index = Int(indexes[position])
                guard index != transparent, index * 3 + 2 < table.count else { continue }
                let out = (y * screen.width + x) * 4
                pixels[out] = table[index * 3]
                pixels[out + 1] = table[index * 3 + 1]
                pixels[out + 2] = table[index * 3 + 2]
                pixels[out + 3] = 255
            }
        }
        return RasterImage(width: screen.width, height: screen.height, pixels: pixels)
    }

    /// The image rows in the order an interlaced frame stores them.
    private static func interlacedRows(_ height: Int) -> [Int] {
        [(0, 8), (4, 8), (2, 4), (1, 2)].flatMap { start, step in Array(stride(from: start, to: height, by: step)) }
    }

    /// The colour indexes LZW-coded in `data`: at most `count` (a short stream gives fewer).
    private static func lzw(_ data: [UInt8], minimumCodeSize: Int, count: Int) -> [UInt8] {
        let clear = 1 << minimumCodeSize, end = clear + 1
        var prefix = [Int](repeating: -1, count: 4096)
        var suffix = [UInt8](repeating: 0, count: 4096)
        var first = [UInt8](repeating: 0, count: 4096)
        for code in 0..<clear {
            suffix[code] = UInt8(truncatingIfNeeded: code)
            first[code] = UInt8(truncatingIfNeeded: code)
        }
        var output: [UInt8] = []
        output.reserveCapacity(count)
        var codeSize = minimumCodeSize + 1, next = clear + 2, previous = -1
        var bits = 0, bitCount = 0, position = 0
        var stack: [UInt8] = []
        while output.count < count {
            while bitCount < codeSize {
                guard position < data.count else { return output }
                bits |= Int(data[position]) << bitCount
                bitCount += 8
                position += 1
            }
            let code = bits & ((1 << codeSize) - 1)
            bits >>= codeSize
            bitCount -= codeSize
            if code == clear {
                codeSize = minimumCodeSize + 1
                next = clear + 2
                previous = -1
                continue
            }
            if code == end { break }
            if previous == -1 {
                guard code < clear else { return output }
                output.append(UInt8(truncatingIfNeeded: code))
                previous = code
                continue
            }
            var current = code
            stack.removeAll(keepingCapacity: true)
            if code >= next {
                guard code == next else { return output }
                stack.append(first[previous])
                current = previous
            }
            while current >= clear {
                stack.append(suffix[current])
                current = prefix[current]
                guard current >= 0 else { return output }
            }
            stack.append(UInt8(truncatingIfNeeded: current))
            let head = stack[stack.count - 1]
            output.append(contentsOf: stack.reversed().prefix(count - output.count))
            if next < 4096 {
                prefix[next] = previous
                suffix[next] = head
                first[next] = first[previous]
                next += 1
                if next == 1 << codeSize && codeSize < 12 { codeSize += 1 }
            }
            previous = code
        }
        return output
    }

    private struct Reader {
        let bytes: [UInt8]
        var position: Int

        mutating func byte() -> UInt8? {
            guard position < bytes.count else { return nil }
            defer { position += 1 }
            return bytes[position]
        }

        mutating func uint16() -> Int? {
            guard let low = byte(), let high = byte() else { return nil }
            return Int(low) | Int(high) << 8
        }

        mutating func bytes(_ count: Int) -> [UInt8]? {
            guard count >= 0, position + count <= bytes.count else { return nil }
            defer { position += count }
            return Array(bytes[position..<position + count])
        }

        mutating func skip(_ count: Int) -> Bool {
            guard count >= 0, position + count <= bytes.count else { return false }
            position += count
            return true
        }

        /// The data sub-blocks up to their empty terminator, joined.
        mutating func subBlocks() -> [UInt8]? {
            var data: [UInt8] = []
            while let size = byte() {
                if size == 0 { return data }
                guard let block = bytes(Int(size)) else { return data }  // cut short: what arrived
                data += block
            }
            return data
        }

        mutating func skipSubBlocks() -> Bool {
            while let size = byte() {
                if size == 0 { return true }
                guard skip(Int(size)) else { return false }
            }
            return false
        }
    }
}

/// The reference cache's layout: a length-prefixed UTF-8 stamp, then arrays of fixed-size values, each a
/// little-endian 64-bit count followed by the values' bytes as this machine stores them (the cache never
/// leaves the machine that wrote it; a file from another is refused by its stamp or its lengths).
struct BinaryWriter {
    private(set) var bytes: [UInt8] = []

    mutating func count(_ value: Int) {
        withUnsafeBytes(of: UInt64(value).littleEndian) { bytes += $0 }
    }

    mutating func string(_ text: String) {
        let utf8 = Array(text.utf8)
        count(utf8.count)
        bytes += utf8
    }

    mutating func array<T: BitwiseCopyable>(_ values: [T]) {
        count(values.count)
        values.withUnsafeBytes { bytes += $0 }
    }
}

/// Reads what `BinaryWriter` wrote; every read is bounds-checked, a short or damaged file gives nil.
struct BinaryReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { offset == bytes.count }

    private mutating func count() -> Int? {
        guard bytes.count - offset >= 8 else { return nil }
        var value: UInt64 = 0
        for index in 0..<8 { value |= UInt64(bytes[offset + index]) << (8 * index) }
        offset += 8
        return value <= UInt64(bytes.count) ? Int(value) : nil
    }

    mutating func string() -> String? {
        guard let length = count(), bytes.count - offset >= length else { return nil }
        defer { offset += length }
        return String(decoding: bytes[offset..<(offset + length)], as: UTF8.self)
    }

    mutating func array<T: BitwiseCopyable>(_ type: T.Type) -> [T]? {
        guard let count = count() else { return nil }
        let (length, overflow) = count.multipliedReportingOverflow(by: MemoryLayout<T>.stride)
        guard !overflow, bytes.count - offset >= length else { return nil }
        let values = [T](unsafeUninitializedCapacity: count) { buffer, initialized in
            bytes.withUnsafeBytes { source in
                UnsafeMutableRawBufferPointer(buffer).copyMemory(
                    from: UnsafeRawBufferPointer(rebasing: source[offset..<(offset + length)]))
            }
            initialized = count
        }
        offset += length
        return values
    }
}

/// A 64-bit FNV-1a fingerprint of an outline (with its em size), for the exact-outline fast path: stable across
/// processes, unlike Swift's seeded `Hasher`.
enum OutlineFingerprint {
    static func of(_ outline: GlyphOutline, unitsPerEm: Int) -> UInt64 {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ value: Int32) {
            withUnsafeBytes(of: value.littleEndian) { bytes in
                for byte in bytes {
                    hash ^= UInt64(byte)
                    hash = hash &* 0x0000_0100_0000_01B3
                }
            }
        }
        mix(Int32(truncatingIfNeeded: unitsPerEm))
        for end in outline.contourEnds { mix(end) }
        for point in outline.points {
            mix(point.x)
            mix(point.y)
            mix(point.onCurve ? 1 : 0)
        }
        return hash
    }
}

import Foundation

/// Whether a file is a complete JPEG, PNG or GIF an EPUB reader can show, judged from its structure rather
/// than its first bytes: a file that only begins like an image (an error page after a JPEG signature, a
/// truncated download) makes epubcheck fail the whole book (`PKG-021 Corrupted image file`).
///
/// JPEG: a start-of-frame marker with non-zero dimensions before the start of scan, and the end-of-image
/// marker. PNG: an IHDR chunk with non-zero dimensions first, chunks that follow each other to IEND. GIF: the
/// header, non-zero screen dimensions and the trailer.
enum ImageStructure {
    /// Random access to a file's bytes, so that a large picture is checked by reading only its headers.
    protocol Bytes {
        /// The file's length.
        var count: Int { get }
        /// Up to `length` bytes from `offset` (fewer at the end of the file).
        func read(at offset: Int, length: Int) -> [UInt8]
    }

    /// What is wrong with an image file, said so a user knows why it was left out.
    enum Problem: Error, Equatable, CustomStringConvertible {
        /// Not a JPEG, PNG or GIF at all (WebP, SVG, an HTML error page…).
        case unknownFormat
        /// It starts like `format` but its structure is broken or incomplete; `detail` says where.
        case damaged(format: String, detail: String)

        var description: String {
            switch self {
            case .unknownFormat: return "not a JPEG, PNG or GIF image"
            case .damaged(let format, let detail): return "a damaged \(format) image (\(detail))"
            }
        }
    }

    /// The EPUB media type of `bytes` (`image/jpeg`, `image/png`, `image/gif`), or why it cannot go in a book.
    static func mediaType(of bytes: some Bytes) -> Result<String, Problem> {
        let head = bytes.read(at: 0, length: 16)
        if head.starts(with: [0xFF, 0xD8, 0xFF]) { return checkJPEG(bytes).map { "image/jpeg" } }
        if head.starts(with: [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]) { return checkPNG(bytes).map { "image/png" } }
        if head.starts(with: Array("GIF87a".utf8)) || head.starts(with: Array("GIF89a".utf8)) {
            return checkGIF(bytes).map { "image/gif" }
        }
        return .failure(.unknownFormat)
    }

    private static func checkJPEG(_ bytes: some Bytes) -> Result<Void, Problem> {
        func damaged(_ detail: String) -> Result<Void, Problem> { .failure(.damaged(format: "JPEG", detail: detail)) }
        var offset = 2
        var frame = false
        // Segments follow each other by their lengths up to the start of scan; the entropy-coded data after it
        // has no lengths, so the end is checked by the EOI marker the file must end with.
        for _ in 0..<10_000 {
            let marker = bytes.read(at: offset, length: 4)
            guard marker.count >= 2, marker[0] == 0xFF else { return damaged("no marker at byte \(offset)") }
            let code = marker[1]
            if code == 0xFF { offset += 1; continue }  // fill byte
            if code == 0x01 || (0xD0...0xD7).contains(code) { offset += 2; continue }  // no length
            if code == 0xD9 { return damaged("the image ends before its scan data") }
            guard marker.count == 4 else { return damaged("cut off at byte \(offset)") }
            let length = Int(marker[2]) << 8 | Int(marker[3])
            guard length >= 2, offset + 2 + length <= bytes.count else { return damaged("a segment runs past the end") }
            let isFrame = (0xC0...0xCF).contains(code) && code != 0xC4 && code != 0xC8 && code != 0xCC
            if isFrame {
                let header = bytes.read(at: offset + 4, length: 5)
                guard header.count == 5 else { return damaged("a short frame header") }
                let height = Int(header[1]) << 8 | Int(header[2])
                let width = Int(header[3]) << 8 | Int(header[4])
                guard width > 0, height > 0 else { return damaged("the frame is \(width)×\(height)") }
                frame = true
            }
            if code == 0xDA {
                guard frame else { return damaged("no frame header before the scan") }
                let tail = bytes.read(at: max(0, bytes.count - 32), length: 32)
                let ends = tail.count >= 2 && (0...(tail.count - 2)).contains { tail[$0] == 0xFF && tail[$0 + 1] == 0xD9 }
                return ends ? .success(()) : damaged("no end-of-image marker: the file is incomplete")
            }
            offset += 2 + length
        }
        return damaged("too many segments")
    }

    private static func checkPNG(_ bytes: some Bytes) -> Result<Void, Problem> {
        func damaged(_ detail: String) -> Result<Void, Problem> { .failure(.damaged(format: "PNG", detail: detail)) }
        var offset = 8
        var first = true
        for _ in 0..<1_000_000 {
            let header = bytes.read(at: offset, length: 16)
            guard header.count >= 8 else { return damaged("no IEND chunk: the file is incomplete") }
            let length = header[0..<4].reduce(0) { $0 << 8 | Int($1) }
            let type = String(decoding: header[4..<8], as: UTF8.self)
            guard length <= Int(Int32.max), offset + 12 + length <= bytes.count else {
                return damaged("the \(type) chunk runs past the end")
            }
            if first {
                guard type == "IHDR", length == 13, header.count == 16 else { return damaged("it does not start with IHDR") }
                let width = header[8..<12].reduce(0) { $0 << 8 | Int($1) }
                let height = header[12..<16].reduce(0) { $0 << 8 | Int($1) }
                guard width > 0, height > 0 else { return damaged("the image is \(width)×\(height)") }
                first = false
            }
            if type == "IEND" { return .success(()) }
            offset += 12 + length
        }
        return damaged("too many chunks")
    }

    private static func checkGIF(_ bytes: some Bytes) -> Result<Void, Problem> {
        let screen = bytes.read(at: 6, length: 4)
        guard screen.count == 4 else { return .failure(.damaged(format: "GIF", detail: "no screen descriptor")) }
        let width = Int(screen[1]) << 8 | Int(screen[0])
        let height = Int(screen[3]) << 8 | Int(screen[2])
        guard width > 0, height > 0 else { return .failure(.damaged(format: "GIF", detail: "the image is \(width)×\(height)")) }
        guard bytes.count > 13, bytes.read(at: bytes.count - 1, length: 1) == [0x3B] else {
            return .failure(.damaged(format: "GIF", detail: "no trailer: the file is incomplete"))
        }
        return .success(())
    }
}

/// Bytes in memory.
struct InMemoryImageBytes: ImageStructure.Bytes {
    let bytes: [UInt8]
    var count: Int { bytes.count }

    func read(at offset: Int, length: Int) -> [UInt8] {
        guard offset >= 0, offset < bytes.count, length > 0 else { return [] }
        return Array(bytes[offset..<min(bytes.count, offset + length)])
    }
}

/// A file on disk, read at the offsets asked for.
final class ImageFileBytes: ImageStructure.Bytes {
    private let handle: FileHandle
    let count: Int

    /// Opens `path`; nil when it cannot be read.
    init?(path: String) {
        guard let handle = FileHandle(forReadingAtPath: path), let size = try? handle.seekToEnd() else { return nil }
        self.handle = handle
        count = Int(clamping: size)
    }

    deinit { try? handle.close() }

    func read(at offset: Int, length: Int) -> [UInt8] {
        guard offset >= 0, offset < count, length > 0, (try? handle.seek(toOffset: UInt64(offset))) != nil,
              let data = try? handle.read(upToCount: length) else { return [] }
        return [UInt8](data)
    }
}

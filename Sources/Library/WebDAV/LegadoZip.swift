import BookRuleJSON
import CLibZip
import Foundation

/// Legado's backup zip read and written with libzip: a flat archive of JSON files (`bookshelf.json`,
/// `bookSource.json`, …).
///
/// The zip comes from a server, so reading it is bounded: the entry count, each entry's size and the total,
/// checked against what is actually decompressed (a zip may state sizes it does not have). Entries are kept
/// by their last path component and only in memory; nothing of the zip's names reaches the file system.
enum LegadoZip {
    /// Most entries read (Legado writes about twenty).
    static let maxEntries = 200
    /// Largest entry (a `bookSource.json` of thousands of sources is tens of MiB).
    static let maxEntryBytes = 128 << 20
    /// Largest total decompressed.
    static let maxTotalBytes = 384 << 20

    /// The entries of the zip `bytes` whose names `wanted` accepts, by name (the last path component); every
    /// entry counts against the limits whether wanted or not.
    static func entries(of bytes: [UInt8], wanted: (String) -> Bool) throws(LegadoBackupError) -> [String: [UInt8]] {
        let result: Result<[String: [UInt8]], LegadoBackupError> = bytes.withUnsafeBytes { buffer in
            Result { () throws(LegadoBackupError) -> [String: [UInt8]] in
                try read(buffer, wanted: wanted)
            }
        }
        return try result.get()
    }

    private static func read(_ buffer: UnsafeRawBufferPointer, wanted: (String) -> Bool) throws(LegadoBackupError) -> [String: [UInt8]] {
        guard let base = buffer.baseAddress, buffer.count > 0 else { throw .notAZip(reason: "the file is empty") }
        var error = zip_error_t()
        zip_error_init(&error)
        defer { zip_error_fini(&error) }
        guard let source = zip_source_buffer_create(base, zip_uint64_t(buffer.count), 0, &error) else {
            throw .notAZip(reason: String(cString: zip_error_strerror(&error)))
        }
        guard let archive = zip_open_from_source(source, ZIP_RDONLY, &error) else {
            zip_source_free(source)
            throw .notAZip(reason: String(cString: zip_error_strerror(&error)))
        }
        defer { zip_discard(archive) }
        let count = zip_get_num_entries(archive, 0)
        guard count >= 0 else { throw .notAZip(reason: String(cString: zip_strerror(archive))) }
        guard count <= maxEntries else { throw .tooManyEntries(count: Int(count), limit: maxEntries) }
        var entries: [String: [UInt8]] = [:]
        var total = 0
        for index in 0..<zip_uint64_t(count) {
            var stat = zip_stat_t()
            zip_stat_init(&stat)
            guard zip_stat_index(archive, index, 0, &stat) == 0, let rawName = stat.name else {
                throw .notAZip(reason: String(cString: zip_strerror(archive)))
            }
            let fullName = String(cString: rawName)
            if fullName.hasSuffix("/") { continue }  // a folder entry
            let name = fullName.split(whereSeparator: { $0 == "/" || $0 == "\\" }).last.map(String.init) ?? fullName
            guard wanted(name) else { continue }
            if stat.valid & zip_uint64_t(ZIP_STAT_SIZE) != 0, stat.size > zip_uint64_t(maxEntryBytes) {
                throw .entryTooLarge(name: name, limit: maxEntryBytes)
            }
            guard let file = zip_fopen_index(archive, index, 0) else {
                throw .notAZip(reason: "\(name): " + String(cString: zip_strerror(archive)))
            }
            defer { zip_fclose(file) }
            var data: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 64 * 1024)
            while true {
                let read = chunk.withUnsafeMutableBytes { zip_fread(file, $0.baseAddress, zip_uint64_t($0.count)) }
                if read < 0 { throw .notAZip(reason: "\(name): " + String(cString: zip_file_strerror(file))) }
                if read == 0 { break }
                data.append(contentsOf: chunk[0..<Int(read)])
                total += Int(read)
                guard data.count <= maxEntryBytes else { throw .entryTooLarge(name: name, limit: maxEntryBytes) }
                guard total <= maxTotalBytes else { throw .tooLarge(limit: maxTotalBytes) }
            }
            entries[name] = data
        }
        return entries
    }

    /// A zip of `files` (name and bytes, in order, deflated), built in a temporary file and read back.
    static func archive(_ files: [(name: String, bytes: [UInt8])]) throws(LegadoBackupError) -> [UInt8] {
        let path = NSTemporaryDirectory() + "bookrule-backup-\(UUID().uuidString).zip"
        defer { unlink(path) }
        var code: Int32 = 0
        guard let archive = zip_open(path, ZIP_CREATE | ZIP_EXCL, &code) else {
            throw .cannotWrite(reason: "libzip cannot create \(path)")
        }
        for file in files {
            // libzip reads the data only at zip_close, so it gets its own copy, which it frees (freep = 1).
            guard let buffer = malloc(max(file.bytes.count, 1)) else {
                zip_discard(archive)
                throw .cannotWrite(reason: "out of memory")
            }
            file.bytes.withUnsafeBytes { bytes in
                if let base = bytes.baseAddress { buffer.copyMemory(from: base, byteCount: bytes.count) }
            }
            guard let source = zip_source_buffer(archive, buffer, zip_uint64_t(file.bytes.count), 1) else {
                free(buffer)
                let reason = String(cString: zip_strerror(archive))
                zip_discard(archive)
                throw .cannotWrite(reason: "\(file.name): \(reason)")
            }
            guard zip_file_add(archive, file.name, source, zip_flags_t(ZIP_FL_ENC_UTF_8)) >= 0 else {
                zip_source_free(source)
                let reason = String(cString: zip_strerror(archive))
                zip_discard(archive)
                throw .cannotWrite(reason: "\(file.name): \(reason)")
            }
        }
        guard zip_close(archive) == 0 else {
            let reason = String(cString: zip_strerror(archive))
            zip_discard(archive)
            throw .cannotWrite(reason: reason)
        }
        do throws(LocalFile.Failure) {
            return try LocalFile.read(path)
        } catch {
            throw .cannotWrite(reason: error.description)
        }
    }
}

/// Why a backup zip could not be read or made.
public enum LegadoBackupError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The bytes are not a zip archive libzip can read.
    case notAZip(reason: String)
    /// The zip holds none of Legado's backup files.
    case notALegadoBackup(found: [String])
    /// The zip has more entries than a backup has.
    case tooManyEntries(count: Int, limit: Int)
    /// One entry decompresses to more than allowed.
    case entryTooLarge(name: String, limit: Int)
    /// The entries together decompress to more than allowed.
    case tooLarge(limit: Int)
    /// A file of the backup is not JSON.
    case malformedJSON(file: String, location: String, message: String)
    /// A file of the backup is JSON but not the array of objects Legado writes.
    case notAList(file: String, found: String)
    /// A replace rule of `replaceRule.json` cannot be read.
    case invalidReplaceRule(String)
    /// The zip could not be made.
    case cannotWrite(reason: String)

    /// What is wrong, for a person.
    public var description: String {
        switch self {
        case .notAZip(let reason):
            return "the backup is not a zip archive (\(reason))"
        case .notALegadoBackup(let found):
            let listed = found.isEmpty ? "nothing" : found.prefix(10).joined(separator: ", ")
            return "the zip is not a Legado backup: it has no bookshelf.json, bookSource.json or replaceRule.json (it holds \(listed))"
        case .tooManyEntries(let count, let limit):
            return "the backup zip has \(count) entries, more than the \(limit) a Legado backup could have"
        case .entryTooLarge(let name, let limit):
            return "\(name) in the backup zip is larger than \(limit >> 20) MiB"
        case .tooLarge(let limit):
            return "the backup zip decompresses to more than \(limit >> 20) MiB"
        case .malformedJSON(let file, let location, let message):
            return "\(file) in the backup is not JSON (\(location): \(message))"
        case .notAList(let file, let found):
            return "\(file) in the backup should be a list of objects, but holds \(found)"
        case .invalidReplaceRule(let reason):
            return "replaceRule.json in the backup: \(reason)"
        case .cannotWrite(let reason):
            return "the backup zip could not be made: \(reason)"
        }
    }
}

import BookRuleLocking
import BookRuleJSON
import BookRuleCrypto
import Foundation

/// What scripts keep with `cache.put` and `source.setVariable`: per source, in a JSON file in the data
/// directory the engine is given (written atomically), or in memory when it is given none. Values expire
/// after the seconds `put` was given.
///
/// A source reads back only what its own scripts put: the file is named after its `bookSourceUrl` and records
/// that key, and a file whose key is not the source's (another source's, a planted one, or one written before files recorded it) is
/// not read. Offline runs (saved pages, a HAR replay, `bookrule test`, the studio) are given no directory,
/// so what a script takes from a fixture never reaches a later live run.
final class ScriptCache: Sendable {
    private struct Entry: Codable {
        var value: String
        var expires: Double?
    }

    /// The file's content: the source it belongs to and its values.
    private struct Stored: Codable {
        var source: String
        var entries: [String: Entry]
    }

    private let path: String?
    private let sourceKey: String
    private let now: @Sendable () -> Date
    private let entries: Locked<[String: Entry]>

    /// The cache of the source keyed `sourceKey`, in `directory` (nil: in memory only).
    init(directory: String?, sourceKey: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
        self.sourceKey = sourceKey
        if let directory {
            // MD5 names the file; a libcrypto that refuses MD5 (FIPS) gets SHA-256 names instead of a trap.
            var digest = MessageDigest(MessageDigest.Algorithm.md5.isAvailable ? .md5 : .sha256)
            digest.update(sourceKey)
            path = directory + "/" + digest.hexDigest() + ".json"
        } else {
            path = nil
        }
        var loaded: [String: Entry] = [:]
        if let path, let bytes = try? LocalFile.readRegularFile(path, limit: LocalFile.readLimit),
           let stored = try? JSONDecoder().decode(Stored.self, from: Data(bytes)), stored.source == sourceKey {
            loaded = stored.entries
        }
        entries = Locked(loaded)
    }

    func get(_ key: String) -> String? {
        let time = now().timeIntervalSince1970
        return entries.withLock { entries in
            guard let entry = entries[key] else { return nil }
            if let expires = entry.expires, expires <= time {
                entries[key] = nil
                return nil
            }
            return entry.value
        }
    }

    func put(_ key: String, _ value: String, seconds: Int?) {
        let expires = seconds.flatMap { $0 > 0 ? now().timeIntervalSince1970 + Double($0) : nil }
        let snapshot = entries.withLock { entries in
            entries[key] = Entry(value: value, expires: expires)
            return entries
        }
        save(snapshot)
    }

    func remove(_ key: String) {
        let snapshot = entries.withLock { entries in
            entries[key] = nil
            return entries
        }
        save(snapshot)
    }

    private func save(_ snapshot: [String: Entry]) {
        guard let path else { return }
        // A cache that cannot be written costs the next run a refetch, never the current one its answer.
        guard let bytes = try? JSONWriter.bytes(Stored(source: sourceKey, entries: snapshot)) else { return }
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        try? LocalFile.writeAtomically(bytes, to: path)
    }
}

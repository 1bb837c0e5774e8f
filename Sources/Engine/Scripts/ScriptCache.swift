import BookRuleLocking
import BookRuleJSON
import BookRuleScript
import Foundation

/// What scripts keep with `cache.put` and `source.setVariable`: per source, in a JSON file in the data
/// directory the engine is given (written atomically), or in memory when it is given none. Values expire
/// after the seconds `put` was given.
final class ScriptCache: Sendable {
    private struct Entry: Codable {
        var value: String
        var expires: Double?
    }

    private let path: String?
    private let now: @Sendable () -> Date
    private let entries: Locked<[String: Entry]>

    /// The cache of the source keyed `sourceKey`, in `directory` (nil: in memory only).
    init(directory: String?, sourceKey: String, now: @escaping @Sendable () -> Date = { Date() }) {
        self.now = now
        if let directory {
            // MD5 names the file; a libcrypto that refuses MD5 (FIPS) gets SHA-256 names instead of a trap.
            var digest = MessageDigest(MessageDigest.Algorithm.md5.isAvailable ? .md5 : .sha256)
            digest.update(sourceKey)
            path = directory + "/" + digest.hexDigest() + ".json"
        } else {
            path = nil
        }
        var loaded: [String: Entry] = [:]
        if let path, let bytes = try? LocalFile.read(path) {
            loaded = (try? JSONDecoder().decode([String: Entry].self, from: Data(bytes))) ?? [:]
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
        guard let bytes = try? JSONWriter.bytes(snapshot) else { return }
        try? FileManager.default.createDirectory(atPath: (path as NSString).deletingLastPathComponent,
                                                 withIntermediateDirectories: true)
        try? LocalFile.writeAtomically(bytes, to: path)
    }
}

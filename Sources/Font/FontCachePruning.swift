import Foundation

/// Keeps the font cache from growing without end: a site that serves a new font with every chapter leaves one
/// decoded map per chapter, and a new bookrule leaves the reference index of the old format behind.
/// Decoded maps are kept most recently used first (a map read is touched), at most `maxDecodedFiles`.
enum FontCachePruning {
    /// The decoded maps kept at most; past it the least recently used are removed down to nine tenths of it.
    static let maxDecodedFiles = 2_000

    /// Removes from `directory` (the `decoded/` folder) the least recently used `*.json` maps past `limit`,
    /// down to nine tenths of it, so a pruning is not due again at the next save; returns how many it removed.
    @discardableResult
    static func pruneDecoded(in directory: String, limit: Int = maxDecodedFiles) -> Int {
        let manager = FileManager.default
        guard let names = try? manager.contentsOfDirectory(atPath: directory) else { return 0 }
        let maps = names.filter { $0.hasSuffix(".json") }
        guard maps.count > limit else { return 0 }
        let dated = maps.map { name -> (name: String, used: Date) in
            let attributes = try? manager.attributesOfItem(atPath: directory + "/" + name)
            return (name, attributes?[.modificationDate] as? Date ?? .distantPast)
        }
        let keep = max(0, limit * 9 / 10)
        var removed = 0
        for entry in dated.sorted(by: { $0.used < $1.used }).prefix(maps.count - keep) {
            if (try? manager.removeItem(atPath: directory + "/" + entry.name)) != nil { removed += 1 }
        }
        return removed
    }

    /// Marks the map at `path` as just used.
    static func touch(_ path: String) {
        try? FileManager.default.setAttributes([.modificationDate: Date()], ofItemAtPath: path)
    }

    /// Removes from `directory` the reference indexes of other formats than `current` (`references-vN.bin`).
    static func removeOtherIndexes(in directory: String, current: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix("references-v") && name.hasSuffix(".bin") && name != current {
            try? FileManager.default.removeItem(atPath: directory + "/" + name)
        }
    }
}

import BookRuleLocking
import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// The replace rules file beside a library, read again only when it changed: a server applies the rules to
/// every chapter it answers, and parsing the file each time cost more than reading the chapter. A change is a
/// different device, inode (the atomic save renames a new file in), size, modification or change time; a
/// missing file is no rules, as `ReplaceRuleSet.load` has it. A save through `save(_:)` is read again
/// whatever the file's times say.
package final class ReplaceRuleFile: Sendable {
    /// The file's path.
    package let path: String
    private let cached = Locked<(stamp: [Int], rules: ReplaceRuleSet)?>(nil)

    /// The rules file of the library at `libraryPath` (`ReplaceRuleSet.path(forLibraryAt:)`).
    package init(libraryPath: String) {
        path = ReplaceRuleSet.path(forLibraryAt: libraryPath)
    }

    /// Saves `rules` to the file atomically; the next `rules()` reads it again.
    /// - Throws: `ReplaceRuleError.cannotStore`.
    package func save(_ rules: ReplaceRuleSet) throws(ReplaceRuleError) {
        defer { cached.withLock { $0 = nil } }
        try rules.save(to: path)
    }

    /// The rules as the file holds them now.
    /// - Throws: `ReplaceRuleError` when the file cannot be read or is not rules.
    package func rules() throws(ReplaceRuleError) -> ReplaceRuleSet {
        var status = stat()
        guard stat(path, &status) == 0 else { return ReplaceRuleSet() }
        // The change time too: an inode number can come back after a save, and a write within one tick of the
        // clock leaves the modification time as it was.
        let stamp = [Int(status.st_dev), Int(status.st_ino), Int(status.st_size), Int(status.st_mtim.tv_sec),
                     Int(status.st_mtim.tv_nsec), Int(status.st_ctim.tv_sec), Int(status.st_ctim.tv_nsec)]
        if let cached = cached.withLock({ $0 }), cached.stamp == stamp { return cached.rules }
        let rules = try ReplaceRuleSet.load(from: path)
        cached.withLock { $0 = (stamp, rules) }
        return rules
    }
}

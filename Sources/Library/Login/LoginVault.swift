#if canImport(Glibc)
import Glibc
#endif
import BookRuleEngine
import BookRuleJSON
import BookRuleLocking
import BookRuleCrypto
import Foundation

/// The logins of every source, encrypted at rest: one file (`logins.sealed`) sealed with AES-256-GCM under a
/// random key kept in its own file (`login.key`, mode 0600), both in the user's configuration folder
/// (`$XDG_CONFIG_HOME/bookrule/`, by default `~/.config/bookrule/`, mode 0700).
///
/// The key is created once, atomically (written to a private temporary file and linked into place, so two
/// runs starting together end with one key); the store is replaced atomically on every change, under a lock
/// file (`logins.lock`) so two runs do not lose each other's changes. A store that does not authenticate
/// (damaged, or sealed under another key) is an error naming the file, never read as empty, so a login is not
/// silently lost.
public final class LoginVault: LoginStore {
    /// The folder holding the key and the store.
    public let directory: String
    private let cache = Locked<[String: StoredLogin]?>(nil)

    /// The vault in `directory` (created when first written).
    public init(directory: String) {
        self.directory = directory
    }

    /// `$XDG_CONFIG_HOME/bookrule`, or `~/.config/bookrule` when `XDG_CONFIG_HOME` is unset, empty or relative.
    public static func defaultDirectory(environment: [String: String] = ProcessInfo.processInfo.environment) -> String {
        if let config = environment["XDG_CONFIG_HOME"], config.hasPrefix("/") {
            return trimmed(config) + "/bookrule"
        }
        let home = environment["HOME"].flatMap { $0.isEmpty ? nil : $0 } ?? NSHomeDirectory()
        return trimmed(home) + "/.config/bookrule"
    }

    /// The key file.
    public var keyPath: String { directory + "/login.key" }
    /// The encrypted store.
    public var storePath: String { directory + "/logins.sealed" }
    private var lockPath: String { directory + "/logins.lock" }

    public func login(forSource sourceKey: String) throws -> StoredLogin? {
        try all()[sourceKey]
    }

    public func save(_ login: StoredLogin?, forSource sourceKey: String) throws {
        try change { logins in
            if let login, !login.isEmpty { logins[sourceKey] = login } else { logins[sourceKey] = nil }
        }
    }

    /// The keys (`bookSourceUrl`) of every source with a stored login.
    public func sources() throws -> [String] {
        try all().keys.sorted()
    }

    /// Removes the store (every login); the key stays. Works on a store that no longer opens.
    public func removeAll() throws {
        try withLock {
            if unlink(storePath) != 0 && errno != ENOENT {
                throw LoginVaultError.unavailable(path: storePath, reason: String(cString: strerror(errno)))
            }
            cache.withLock { $0 = [:] }
        }
    }

    // MARK: - Reading and writing

    private func all() throws -> [String: StoredLogin] {
        if let cached = cache.withLock({ $0 }) { return cached }
        let logins = try read()
        cache.withLock { $0 = logins }
        return logins
    }

    private func change(_ body: (inout [String: StoredLogin]) -> Void) throws {
        try withLock {
            var logins = try read()
            body(&logins)
            try write(logins)
            cache.withLock { $0 = logins }
        }
    }

    private func read() throws -> [String: StoredLogin] {
        guard LocalFile.size(storePath) != nil || FileManager.default.fileExists(atPath: storePath) else { return [:] }
        let sealed: [UInt8]
        do {
            sealed = try LocalFile.readRegularFile(storePath, limit: 16 * 1024 * 1024)
        } catch {
            throw LoginVaultError.unavailable(path: storePath, reason: error.reason)
        }
        guard let key = try existingKey() else {
            throw LoginVaultError.damaged(path: storePath, reason: "its key \(keyPath) is missing")
        }
        let plain: [UInt8]
        do {
            plain = try SealedBox.open(sealed, key: key)
        } catch {
            throw LoginVaultError.damaged(path: storePath, reason: error.description)
        }
        do {
            return try JSONDecoder().decode(StoreFile.self, from: Data(plain)).logins.mapValues(\.stored)
        } catch {
            throw LoginVaultError.damaged(path: storePath, reason: "its contents are not a login store")
        }
    }

    private func write(_ logins: [String: StoredLogin]) throws {
        let key = try existingKey() ?? createKey()
        let plain: [UInt8]
        let sealed: [UInt8]
        do {
            plain = try JSONWriter.bytes(StoreFile(logins: logins.mapValues(StoredEntry.init)))
            sealed = try SealedBox.seal(plain, key: key)
        } catch {
            throw LoginVaultError.unavailable(path: storePath, reason: "\(error)")
        }
        do {
            try LocalFile.replaceAtomically(storePath) { (temporary) throws(LocalFile.Failure) in
                try Self.writePrivate(sealed, to: temporary)
            }
        } catch {
            throw LoginVaultError.unavailable(path: storePath, reason: error.reason)
        }
    }

    /// The key, or nil when there is none yet.
    private func existingKey() throws -> [UInt8]? {
        var info = stat()
        guard lstat(keyPath, &info) == 0 else {
            if errno == ENOENT { return nil }
            throw LoginVaultError.badKey(path: keyPath, reason: String(cString: strerror(errno)))
        }
        guard (info.st_mode & S_IFMT) == S_IFREG else { throw LoginVaultError.badKey(path: keyPath, reason: "it is not a regular file") }
        guard info.st_mode & 0o077 == 0 else {
            throw LoginVaultError.badKey(path: keyPath, reason: String(format: "others may read it (mode %04o); `chmod 600 %@`",
                                                                       Int(info.st_mode & 0o7777), keyPath))
        }
        let key: [UInt8]
        do {
            key = try LocalFile.readRegularFile(keyPath, limit: 1024)
        } catch {
            throw LoginVaultError.badKey(path: keyPath, reason: error.reason)
        }
        guard key.count == SealedBox.keySize else {
            throw LoginVaultError.badKey(path: keyPath, reason: "it holds \(key.count) bytes, not \(SealedBox.keySize)")
        }
        return key
    }

    /// A new key, written privately and linked into place; when another run linked one first, that one.
    private func createKey() throws -> [UInt8] {
        let key = SealedBox.newKey()
        let temporary = directory + "/.login.key.\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
        do {
            try Self.writePrivate(key, to: temporary)
        } catch {
            unlink(temporary)
            throw LoginVaultError.unavailable(path: keyPath, reason: error.reason)
        }
        defer { unlink(temporary) }
        if link(temporary, keyPath) != 0 {
            guard errno == EEXIST, let existing = try existingKey() else {
                throw LoginVaultError.unavailable(path: keyPath, reason: String(cString: strerror(errno)))
            }
            return existing
        }
        return key
    }

    /// Runs `body` holding the vault's lock file (created in a private folder when missing).
    private func withLock<T>(_ body: () throws -> T) throws -> T {
        do {
            try LocalFile.makeDirectories(directory)
        } catch {
            throw LoginVaultError.unavailable(path: directory, reason: error.reason)
        }
        _ = chmod(directory, 0o700)
        let descriptor = open(lockPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LoginVaultError.unavailable(path: lockPath, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        while flock(descriptor, LOCK_EX) != 0 {
            guard errno == EINTR else { throw LoginVaultError.unavailable(path: lockPath, reason: String(cString: strerror(errno))) }
        }
        return try body()
    }

    /// Writes `bytes` to a new file at `path` that only its owner may read (0600), flushed.
    private static func writePrivate(_ bytes: [UInt8], to path: String) throws(LocalFile.Failure) {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw LocalFile.Failure(path: path, reason: String(cString: strerror(errno))) }
        defer { close(descriptor) }
        var written = 0
        while written < bytes.count {
            let count = bytes.withUnsafeBytes { buffer in
                Glibc.write(descriptor, buffer.baseAddress.map { $0 + written }, buffer.count - written)
            }
            if count < 0 {
                if errno == EINTR { continue }
                throw LocalFile.Failure(path: path, reason: "write failed: \(String(cString: strerror(errno)))")
            }
            written += count
        }
        guard fsync(descriptor) == 0 else { throw LocalFile.Failure(path: path, reason: "fsync failed") }
    }

    private static func trimmed(_ path: String) -> String {
        var path = path
        while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
        return path
    }

    /// The store's plaintext: a version and the logins by source.
    private struct StoreFile: Codable {
        var version = 1
        var logins: [String: StoredEntry]
    }

    private struct StoredEntry: Codable {
        var info: String?
        var header: String?
        var cookies: [String: String]

        init(_ login: StoredLogin) {
            info = login.info
            header = login.header
            cookies = login.cookies
        }

        var stored: StoredLogin { StoredLogin(info: info, header: header, cookies: cookies) }
    }
}

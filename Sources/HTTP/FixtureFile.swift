import BookRuleJSON

/// The files a fixture names (the pages `pages.json` lists, the index itself), read only from inside the
/// fixture's directory: a name is resolved with `realpath` (every `..` and symbolic link followed to where it
/// really leads) and refused unless it lands inside the directory's own real path, as a regular file of at
/// most `sizeLimit` bytes. A fixture is as untrusted as the source it tests: without this, a `pages.json`
/// naming `/etc/passwd` would hand the file to the source's scripts, and one naming a FIFO would block the
/// run forever.
public enum FixtureFile {
    /// The largest file a fixture may name: the fetcher's body limit, as a saved page stands in for a body.
    public static let sizeLimit = CurlTransport.Configuration.defaultMaxBodyBytes

    /// The real path of the fixture directory `directory`.
    public static func directory(_ directory: String) throws(FixtureFileError) -> String {
        do {
            return try LocalFile.realPath(directory)
        } catch {
            throw .cannotRead(path: directory, reason: error.reason)
        }
    }

    /// The real path of the file `name` names inside `directory` (a real path, from `directory(_:)`).
    public static func resolve(_ name: String, in directory: String) throws(FixtureFileError) -> String {
        guard !name.isEmpty, !name.utf8.contains(0) else { throw .badName(name: name, directory: directory) }
        guard !name.hasPrefix("/") else { throw .absolute(name: name, directory: directory) }
        let path = (directory == "/" ? "" : directory) + "/" + name
        let resolved: String
        do {
            resolved = try LocalFile.realPath(path)
        } catch {
            throw .cannotRead(path: path, reason: error.reason)
        }
        guard resolved.hasPrefix(directory == "/" ? "/" : directory + "/") else {
            throw .outside(name: name, directory: directory, resolved: resolved)
        }
        return resolved
    }

    /// The bytes of the file `name` names inside `directory` (a real path): resolved, confined, checked to
    /// be a regular file of at most `limit` bytes before it is opened.
    public static func read(_ name: String, in directory: String, limit: Int = sizeLimit) throws(FixtureFileError) -> [UInt8] {
        let resolved = try resolve(name, in: directory)
        do {
            return try LocalFile.readRegularFile(resolved, limit: limit)
        } catch {
            throw .cannotRead(path: resolved, reason: error.reason)
        }
    }
}

/// A Legado backup read from a WebDAV folder and not yet merged into a library (`LegadoWebDAV.fetchBackup`).
public struct WebDAVFetchedBackup: Sendable {
    /// The backup's file name on the server.
    public let name: String
    /// Its contents, each book's progress already the further of the backup's and its `bookProgress/` file.
    public let backup: LegadoBackup
    /// Books whose progress came from a `bookProgress/` file.
    public let progressFromFiles: Int

    /// Creates one.
    public init(name: String, backup: LegadoBackup, progressFromFiles: Int) {
        self.name = name
        self.backup = backup
        self.progressFromFiles = progressFromFiles
    }
}

/// What `LegadoWebDAV.backup` uploaded.
public struct WebDAVBackupReport: Sendable, Equatable {
    /// The name the backup has on the server.
    public var name: String
    /// The name it was meant to have; different when a backup of that name was there already.
    public var wantedName: String
    /// The zip's size.
    public var bytes: Int
}

import Foundation

/// One file or folder of a WebDAV folder's listing (a `response` of a PROPFIND multistatus).
public struct WebDAVEntry: Sendable, Equatable {
    /// Its name, percent-decoded (`backup2026-12-07.zip`), without a trailing slash.
    public var name: String
    /// Whether it is a folder (its `resourcetype` holds `collection`).
    public var isFolder: Bool
    /// Its size in bytes (`getcontentlength`), 0 when the server gave none.
    public var size: Int64
    /// When it last changed (`getlastmodified`), nil when the server gave none or an unreadable date.
    public var lastModified: Date?

    /// Creates an entry.
    public init(name: String, isFolder: Bool, size: Int64 = 0, lastModified: Date? = nil) {
        self.name = name
        self.isFolder = isFolder
        self.size = size
        self.lastModified = lastModified
    }
}

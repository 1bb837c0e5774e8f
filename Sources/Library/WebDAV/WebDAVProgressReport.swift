/// What `LegadoWebDAV.syncProgress` moved.
public struct WebDAVProgressReport: Sendable, Equatable {
    /// Books whose progress was taken from the server (it was further).
    public var pulled: [String] = []
    /// Books whose progress was written to the server.
    public var pushed: [String] = []

    /// Nothing moved yet.
    public init() {}
}

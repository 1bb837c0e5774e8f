/// A server started beside the HTTP one with what it serves (the WebSocket server on PORT+1), stopped before it.
public protocol ServeCompanion: Sendable {
    /// Stops it; returns when its connections are done.
    func stop()
}

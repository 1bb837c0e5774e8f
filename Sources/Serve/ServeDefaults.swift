/// The numbers `bookrule serve` starts from, as Legado's own web service uses them.
public enum ServeDefaults {
    /// Legado's HTTP port; its web client finds the WebSocket server on the next one.
    public static let httpPort: UInt16 = 1122
    /// The address served when `--listen` is not given: this machine only.
    public static let listenAddress = "127.0.0.1"
    /// The largest request body read (a collection of a few thousand sources fits).
    public static let bodyLimit = 16 << 20
    /// How many chapters after the one opened are fetched in the background.
    public static let prefetchChapters = 2
    /// The cookie holding the access token after the first visit with `?token=`.
    public static let cookieName = "bookrule_serve"

    /// Connections each of serve's two ports holds at once (requests, half-open ones, WebSocket sessions): as
    /// many as a quarter of the process's open files allow, between 256 and 4,096, so a few hundred slow or
    /// idle clients (they cost a slot in libmicrohttpd's event loop, never a thread) leave room for everyone
    /// else, and the library, sites and both ports never run out of descriptors.
    public static func connectionLimit(openFiles: Int) -> UInt32 {
        UInt32(min(4096, max(256, openFiles / 4)))
    }
}

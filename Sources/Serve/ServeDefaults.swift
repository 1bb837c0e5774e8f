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
}

/// The numbers `bookrule serve` starts from, as Legado's own web service uses them.
public enum ServeDefaults {
    /// Legado's HTTP port; its web client finds the WebSocket server on the next one.
    public static let httpPort: UInt16 = 1122
}

import BookRuleHTTPServer

/// What a companion server gets: the gate (whose `allows(host:origin:cookie:)` checks a handshake), the library
/// with its sources and transport stack, and the port it is to listen on.
public struct ServeContext: Sendable {
    /// The gate: Host (either port), Origin, token cookie.
    package let gate: RequestGate
    /// The library, its sources (`library.sources()`), its store (`library.store`) and the transport stack
    /// (`library.transport`) every site request goes through.
    package let library: ReadingLibrary
    /// The address the HTTP server listens on.
    public let listenAddress: String
    /// The port the companion listens on: the HTTP port + 1.
    public let port: UInt16
}

import BookRuleLibrary
import BookRuleLocking
@testable import BookRuleServe
import Foundation
import Testing
import TestSupport

/// A companion that remembers what it was given and whether it was stopped.
final class RecordingCompanion: ServeCompanion {
    let context: ServeContext
    let stopped = Locked(false)
    init(_ context: ServeContext) { self.context = context }
    func stop() { stopped.withLock { $0 = true } }
}

@Suite("bookrule serve: the server beside it (the WebSocket server's hook)")
struct ServeCompanionTests {
    @Test("A companion starts with the gate, the library and PORT+1, and is stopped with the server; one that fails to start stops serve's start")
    func companion() throws {
        let directory = try ScratchDirectory("serve-companion")
        let started = Locked<RecordingCompanion?>(nil)
        let configuration = ServeConfiguration(libraryPath: directory.path + "/library.sqlite", port: 0,
                                               transport: .live(hostStatePath: nil))
        let server = try ReadingServer(configuration: configuration) { context in
            let companion = RecordingCompanion(context)
            started.withLock { $0 = companion }
            return companion
        }
        let companion = try #require(started.withLock { $0 })
        #expect(Int(companion.context.port) == server.port + 1)
        #expect(companion.context.library.store === server.store)
        #expect(companion.context.gate.allows(host: "127.0.0.1:\(server.port + 1)", origin: nil, cookie: nil))
        #expect(try companion.context.library.sources().isEmpty)
        server.stop(waitingUpTo: 5)
        #expect(companion.stopped.withLock { $0 })

        struct Refused: Error {}
        #expect(throws: ServeError.companion("Refused()")) {
            try ReadingServer(configuration: configuration) { _ in throw Refused() }
        }
    }
}

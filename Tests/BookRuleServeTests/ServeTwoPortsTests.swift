import BookRuleLibrary
@testable import BookRuleServe
import Foundation
import Testing
import TestSupport

@Suite("bookrule serve: one server on PORT and PORT+1, HTTP and WebSockets on both", .timeLimit(.minutes(2 * TestTime.scale)))
struct ServeTwoPortsTests {
    @Test("Both ports answer the API and Legado's WebSockets, behind the same gate; stopping ends the sessions")
    func bothPorts() async throws {
        let token = "0123456789abcdef0123"
        let workspace = try await ServeWorkspace(token: token)
        let port = UInt16(workspace.server.port)
        for served in [port, port + 1] {
            let shelf = try await RawHTTP(port: Int(served)).send("GET", "/getBookshelf?token=\(token)",
                                                                  host: "127.0.0.1:\(served)")
            #expect(shelf.status == 200 && shelf.text.contains(workspace.book.name), "port \(served)")
            let refused = try WebSocketWireClient(port: served)
            #expect(try await refused.open("/searchBook", host: "127.0.0.1:\(served)") == 403, "port \(served): no token")
            let client = try WebSocketWireClient(port: served)
            #expect(try await client.open("/searchBook?token=\(token)", host: "127.0.0.1:\(served)") == 101, "port \(served)")
            try await client.write(WebSocketWireClient.text(#"{"key":"镜"}"#))
            let frames = try await client.framesUntilEnd()
            #expect(frames.last?.closeCode == 1000, "port \(served)")
            #expect(frames.contains { $0.opcode == 0x1 && $0.text.contains("bookUrl") }, "port \(served)")
        }
        // A session open when serve stops is closed with 1001.
        let open = try WebSocketWireClient(port: port + 1)
        #expect(try await open.open("/bookSourceDebug?token=\(token)", host: "127.0.0.1:\(port + 1)") == 101)
        let closing = Task { try await open.framesUntilEnd() }
        let server = workspace.server
        await server.stop(waitingUpTo: 5)
        #expect(try await closing.value.last?.closeCode == 1001)
    }
}

import Foundation
import Testing
import TestSupport
@testable import BookRuleHTTP

/// A server in the process reserves its ports; no request through the transport reaches them, however named.
@Suite("ReservedLocalPorts: the process's own server ports are out of the transport's reach")
struct ReservedLocalPortsTests {
    static func transport(_ reserved: ReservedLocalPorts) -> CurlTransport {
        CurlTransport(configuration: .init(connectTimeout: TestTime.bound(.seconds(15)), totalTimeout: TestTime.bound(.seconds(30)),
                                           proxy: "", useEnvironmentProxy: false),
                      reservedPorts: reserved)
    }

    @Test("a reserved port is refused by address, by name and after a redirect, before a byte is sent; others are reached")
    func reservedPortIsRefused() async throws {
        // Long lifetimes: a suite that shares two busy cores can start this test's requests half a minute late.
        let own = try LoopbackServer(maxConnections: 3, lifetime: 60) { _, _ in LoopbackServer.reply(200, "OK", body: Array("secret".utf8)) }
        let site = try LoopbackServer(maxConnections: 2, lifetime: 60) { request, _ in
            request.target == "/moved"
                ? LoopbackServer.reply(302, "Found", headers: [("Location", "http://127.0.0.1:\(own.port)/getBookshelf")])
                : LoopbackServer.reply(200, "OK", body: Array("page".utf8))
        }
        let reserved = ReservedLocalPorts()
        reserved.reserve([Int(own.port)])
        let transport = Self.transport(reserved)
        for url in ["http://127.0.0.1:\(own.port)/getBookshelf", "http://localhost:\(own.port)/getBookshelf",
                    "http://127.0.0.1:\(site.port)/moved"] {
            do {
                let response = try await transport.send(HTTPRequest(url: url))
                Issue.record("\(url) was answered \(response.status)")
            } catch let error as HTTPTransportError {
                guard case .reservedDestination(_, let destination) = error else { Issue.record("\(url): \(error)"); continue }
                #expect(destination == "127.0.0.1:\(own.port)")
                #expect(error.description.contains("not retried"))
            }
        }
        #expect(own.requests.isEmpty, "the reserved server saw \(own.requests.map(\.target))")
        let page = try await transport.send(HTTPRequest(url: "http://127.0.0.1:\(site.port)/page"))
        #expect(page.status == 200 && page.body == Array("page".utf8))
    }

    @Test("this machine is loopback, the unspecified address, or the connection's own local address")
    func thisMachine() {
        let reserved = ReservedLocalPorts()
        reserved.reserve([1122, 1123])
        #expect(reserved.refuses(remoteAddress: "127.0.0.1", localAddress: "127.0.0.1", port: 1122))
        #expect(reserved.refuses(remoteAddress: "127.1.2.3", localAddress: "127.0.0.1", port: 1123))
        #expect(reserved.refuses(remoteAddress: "::1", localAddress: "::1", port: 1122))
        #expect(reserved.refuses(remoteAddress: "::ffff:127.0.0.1", localAddress: "::ffff:127.0.0.1", port: 1122))
        #expect(reserved.refuses(remoteAddress: "0.0.0.0", localAddress: "127.0.0.1", port: 1122))
        #expect(reserved.refuses(remoteAddress: "192.168.1.5", localAddress: "192.168.1.5", port: 1122))
        #expect(!reserved.refuses(remoteAddress: "192.168.1.9", localAddress: "192.168.1.5", port: 1122))
        #expect(!reserved.refuses(remoteAddress: "127.0.0.1", localAddress: "127.0.0.1", port: 8080))
    }
}

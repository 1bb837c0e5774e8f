import Testing
@testable import BookRuleHTTP

@Suite("recordings redact a login's secrets")
struct RecordingRedactionTests {
    /// Answers every request with a token in its body and a cookie.
    private struct TokenSite: HTTPTransport {
        func send(_ request: HTTPRequest) async throws -> HTTPResponse {
            HTTPResponse(url: request.url, status: 200, headers: [HTTPHeader("Set-Cookie", "session=tok-5678; Path=/")],
                         body: Array("{\"token\": \"tok-5678\"}".utf8))
        }
    }

    @Test("secrets are redacted in every exchange when the recording is read, even one learnt from a later answer")
    func redactsSecretsLearntLater() async throws {
        let secrets = SecretSet()
        secrets.insert(["p@ss word!", "hdr-1234"])
        secrets.insert(formValues: ["alice-w"])
        let recorder = RecordingTransport(upstream: TokenSite())
        var request = HTTPRequest(url: "http://127.0.0.1:1/login?who=p%40ss+word%21", method: "POST",
                                  headers: [HTTPHeader("X-Token", "hdr-1234"), HTTPHeader("Content-Type", "application/x-www-form-urlencoded")],
                                  body: Array("user=alice-w&password=p%40ss+word%21".utf8))
        request.secrets = secrets
        _ = try await recorder.send(request)
        // The token arrives in the answer; the login learns it only afterwards.
        secrets.insert(["tok-5678"])
        let entry = try #require(recorder.recording.entries.first)
        let written = String(decoding: recorder.recording.jsonBytes(), as: UTF8.self)
        for secret in ["p@ss word!", "p%40ss+word%21", "hdr-1234", "tok-5678"] {
            #expect(!written.contains(secret), "\(secret) in \(written)")
        }
        #expect(entry.request.postData?.body.map { String(decoding: $0, as: UTF8.self) } == "user=REDACTED&password=REDACTED")
        #expect(entry.request.headers.value(for: "X-Token") == "REDACTED")
        #expect(entry.response.content.body.map { String(decoding: $0, as: UTF8.self) } == "{\"token\": \"REDACTED\"}")
    }

    @Test("a secret is redacted in a JSON body too: with its quotes and backslashes escaped, or written as \\u escapes")
    func redactsJSONEscapedSecrets() async throws {
        let secrets = SecretSet()
        secrets.insert(["p\"s\\w<密>"])
        let recorder = RecordingTransport(upstream: TokenSite())
        for body in [#"{"password":"p\"s\\w<密>"}"#, #"{"password":"p\"s\\w\u003c\u5bc6\u003e"}"#] {
            var request = HTTPRequest(url: "http://127.0.0.1:1/login", method: "POST", body: Array(body.utf8))
            request.secrets = secrets
            _ = try await recorder.send(request)
        }
        let bodies = recorder.recording.entries.compactMap { $0.request.postData?.body.map { String(decoding: $0, as: UTF8.self) } }
        #expect(bodies == [#"{"password":"REDACTED"}"#, #"{"password":"REDACTED"}"#])
    }

    @Test("a form value that is not a secret (a user name) is redacted in request bodies only")
    func formValuesOnlyInBodies() async throws {
        let secrets = SecretSet()
        secrets.insert(formValues: ["tok-5678"])
        let recorder = RecordingTransport(upstream: TokenSite())
        var request = HTTPRequest(url: "http://127.0.0.1:1/api?name=tok-5678", method: "POST", body: Array("name=tok-5678".utf8))
        request.secrets = secrets
        _ = try await recorder.send(request)
        let entry = try #require(recorder.recording.entries.first)
        #expect(entry.request.postData?.body.map { String(decoding: $0, as: UTF8.self) } == "name=REDACTED")
        #expect(entry.request.url.hasSuffix("name=tok-5678"))
        #expect(entry.response.content.body.map { String(decoding: $0, as: UTF8.self) } == "{\"token\": \"tok-5678\"}")
    }

    @Test("a request without secrets is recorded as it was")
    func keepsOrdinaryExchanges() async throws {
        let recorder = RecordingTransport(upstream: TokenSite())
        _ = try await recorder.send(HTTPRequest(url: "http://127.0.0.1:1/book/1/", headers: [HTTPHeader("X-Token", "hdr-1234")]))
        let entry = try #require(recorder.recording.entries.first)
        #expect(entry.request.headers.value(for: "X-Token") == "hdr-1234")
        #expect(entry.response.content.body.map { String(decoding: $0, as: UTF8.self) } == "{\"token\": \"tok-5678\"}")
    }
}

import BookRuleJSON
@testable import BookRuleEngine
import Testing

@Suite("A URL's webView options as a source writes them")
struct WebViewOptionsTests {
    func options(_ json: String) throws -> WebViewOptions? {
        guard case .object(let object) = try JSONParser.parse(json, lenient: true).value else { return nil }
        return WebViewOptions.reading(object)
    }

    @Test("webViewDelayTime that no Duration holds (inf, 1e30, negative, NaN) is clamped to 0…60 s, not a trap later")
    func delayClamped() throws {
        #expect(try options(#"{"webView": true, "webViewDelayTime": 1500}"#)?.delaySeconds == 1.5)
        #expect(try options(#"{"webView": true, "webViewDelayTime": 1e30}"#)?.delaySeconds == 60)
        #expect(try options(#"{"webView": true, "webViewDelayTime": "inf"}"#)?.delaySeconds == 0)
        #expect(try options(#"{"webView": true, "webViewDelayTime": "nan"}"#)?.delaySeconds == 0)
        #expect(try options(#"{"webView": true, "webViewDelayTime": -5}"#)?.delaySeconds == 0)
    }
}

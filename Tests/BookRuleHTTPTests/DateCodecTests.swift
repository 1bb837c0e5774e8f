import Foundation
import Testing
@testable import BookRuleHTTP

@Suite("DateCodec (curl_getdate for HTTP dates, ISO 8601 for HAR)")
struct DateCodecTests {
    /// Sun, 06 Nov 1994 08:49:37 GMT, the RFC 9110 example.
    static let example = Date(timeIntervalSince1970: 784_111_777)

    @Test("the three RFC 9110 forms", arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ])
    func forms(_ text: String) {
        #expect(DateCodec.httpDate(text) == Self.example)
    }

    @Test("garbage is nil", arguments: ["", "   ", "garbage", "not a date at all", "Sun, 99 Foo 1994 99:99:99 GMT"])
    func garbage(_ text: String) {
        #expect(DateCodec.httpDate(text) == nil)
    }

    @Test("zones: none means GMT, numeric offsets apply, CST is US Central")
    func zones() {
        #expect(DateCodec.httpDate("Sun, 06 Nov 1994 08:49:37") == Self.example)
        #expect(DateCodec.httpDate("Sun, 06 Nov 1994 16:49:37 +0800") == Self.example)
        #expect(DateCodec.httpDate("Sun, 06 Nov 1994 02:49:37 CST") == Self.example)
    }

    @Test("IMF-fixdate, ISO 8601 and message timestamps, and their round trips")
    func formatting() {
        #expect(DateCodec.imfFixdate(Self.example) == "Sun, 06 Nov 1994 08:49:37 GMT")
        #expect(DateCodec.imfFixdate(Date(timeIntervalSince1970: 0)) == "Thu, 01 Jan 1970 00:00:00 GMT")
        let later = Date(timeIntervalSince1970: 4_102_444_800.75)
        #expect(DateCodec.imfFixdate(later) == "Fri, 01 Jan 2100 00:00:00 GMT")
        #expect(DateCodec.httpDate(DateCodec.imfFixdate(later)) == Date(timeIntervalSince1970: 4_102_444_800))
        #expect(DateCodec.iso8601(later) == "2100-01-01T00:00:00.750Z")
        #expect(DateCodec.iso8601(Self.example) == "1994-11-06T08:49:37.000Z")
        #expect(DateCodec.iso8601Date("2100-01-01T00:00:00.750Z") == later)
        #expect(DateCodec.iso8601Date("1994-11-06T16:49:37+08:00") == Self.example)
        #expect(DateCodec.iso8601Date("1994-11-06 08:49:37") == nil)
        #expect(DateCodec.utcTimestamp(Self.example) == "1994-11-06 08:49:37 UTC")
        #expect(DateCodec.utcYear(of: Self.example) == 1994)
    }
}

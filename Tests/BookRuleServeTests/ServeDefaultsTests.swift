import BookRuleServe
import Testing

@Suite struct ServeDefaultsTests {
    @Test func httpPortIsLegados() {
        #expect(ServeDefaults.httpPort == 1122)
    }
}

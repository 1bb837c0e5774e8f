import Testing
@testable import BookRuleCrypto

@Suite("AES-256-GCM sealed boxes (the login vault's encryption)")
struct SealedBoxTests {
    @Test("a sealed box opens to its plaintext, differs on every seal, and refuses a changed byte or another key")
    func sealsAndRefusesTampering() throws {
        let key = SealedBox.newKey()
        let plain = Array("{\"password\":\"s3cret\"}".utf8)
        let box = try SealedBox.seal(plain, key: key)
        #expect(try SealedBox.open(box, key: key) == plain)
        #expect(try SealedBox.seal(plain, key: key) != box)
        #expect(!box.starts(with: plain) && box.count == plain.count + 28)
        var changed = box
        changed[14] ^= 1
        #expect(throws: SealedBox.Failure.notAuthentic) { try SealedBox.open(changed, key: key) }
        #expect(throws: SealedBox.Failure.notAuthentic) { try SealedBox.open(box, key: SealedBox.newKey()) }
        #expect(throws: SealedBox.Failure.truncated(5)) { try SealedBox.open([1, 2, 3, 4, 5], key: key) }
        #expect(try SealedBox.open(try SealedBox.seal([], key: key), key: key) == [])
    }
}

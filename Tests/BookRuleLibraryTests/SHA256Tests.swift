import Foundation
import Testing
import TestSupport
@testable import BookRuleLibrary

@Suite("SHA-256 through libcrypto")
struct SHA256Tests {
    @Test("copies are independent and finalize leaves the hash usable")
    func copiesAndFinalize() {
        var first = SHA256()
        first.update(Array("ab".utf8))
        var second = first
        second.update(Array("c".utf8))
        first.update(Array("x".utf8))
        #expect(second.hexDigest() == "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
        #expect(first.hexDigest() == SHA256.hexDigest(of: Array("abx".utf8)))
        #expect(second.finalize() == SHA256.hash(Array("abc".utf8)))
        #expect(second.finalize().count == SHA256.byteCount)
    }

    /// 200 blocks of 1 MiB (`(i * 7 + 3) & 0xff`, the first byte of block k set to k); the digest was computed
    /// with Python's hashlib.
    @Test("a 200 MiB file hashes to the digest hashlib gives, through hashFile and through the download check")
    func twoHundredMiB() async throws {
        // Writing and hashing 200 MiB takes seconds of CPU: not on the cooperative pool the suite shares.
        try await offCooperativePool { try await Self.hashTwoHundredMiB() }
    }

    static func hashTwoHundredMiB() async throws {
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("sha256-200m-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: path) }
        var block = (0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) }
        #expect(FileManager.default.createFile(atPath: path, contents: nil))
        let handle = try FileHandle(forWritingAtPath: path).unwrapped()
        for index in 0..<200 {
            block[0] = UInt8(index)
            try handle.write(contentsOf: block)
        }
        try handle.close()
        let expected = "adfab00902aaf37b34bdebb10f2046ac782a01370dce64cdd195fe52ffd36918"
        #expect(try SHA256.hashFile(atPath: path) == expected)
        #expect(try await ResumableDownload.sha256OnOwnThread(ofFile: path).get() == expected)
    }

    @Test("a missing file is a clear error naming it")
    func missingFile() {
        let missing = "/nonexistent/bookrule-\(UUID().uuidString)"
        #expect(throws: DigestFileError.cannotOpen(path: missing, errno: ENOENT)) { try SHA256.hashFile(atPath: missing) }
        #expect(DigestFileError.cannotOpen(path: missing, errno: ENOENT).description
            == "cannot open \(missing) to hash it: No such file or directory")
    }
}

private extension Optional {
    func unwrapped() throws -> Wrapped {
        guard let self else { throw CocoaError(.fileNoSuchFile) }
        return self
    }
}

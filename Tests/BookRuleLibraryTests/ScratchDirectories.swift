import Foundation

/// A fresh directory under the temporary directory, `bookrule-fetch-<UUID>`, left in place after the test.
func scratchDirectory() throws -> String {
    let path = NSTemporaryDirectory() + "bookrule-fetch-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

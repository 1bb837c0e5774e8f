import Foundation

/// A fresh directory under the temporary directory, removed with everything in it when the value goes away,
/// so a test cannot leave files behind however it ends. Keep the value (not only its `path`) alive as long as
/// the files are used.
package final class ScratchDirectory {
    /// The directory.
    package let path: String

    /// Creates `bookrule-<label>-<UUID>`.
    package init(_ label: String = "scratch") throws {
        path = NSTemporaryDirectory() + "bookrule-\(label)-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}

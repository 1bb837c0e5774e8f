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

/// A fresh directory in /dev/shm when it has 1 GiB free (so the downloads' fsyncs don't stall other tests' disk
/// I/O), else in the temporary directory; left in place, so a test removes it when done. For the tests that move
/// real data: the media downloader's (BookRuleLibraryTests) and `bookrule download`'s (bookruleTests).
package func roomyScratchDirectory() throws -> String {
    var info = statvfs()
    let folder = statvfs("/dev/shm", &info) == 0 && UInt64(info.f_bavail) * UInt64(info.f_frsize) > 1 << 30
        ? "/dev/shm/" : NSTemporaryDirectory()
    let path = folder + "bookrule-download-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    return path
}

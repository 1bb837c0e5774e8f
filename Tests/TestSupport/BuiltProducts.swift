import Foundation

/// Where this build's executables are: the directory of the running test binary, which SwiftPM builds beside
/// them, so a sanitizer build (`--scratch-path .build/asan`) runs its own instrumented `bookrule`, not a stale
/// ordinary one from `.build/debug`.
package enum BuiltProducts {
    /// The products directory, e.g. `.build/x86_64-unknown-linux-gnu/debug`.
    package static let directory: String = {
        let running = (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? ""
        let folder = (running as NSString).deletingLastPathComponent
        if !folder.isEmpty, FileManager.default.isExecutableFile(atPath: folder + "/bookrule") { return folder }
        return SharedCorpus.repositoryRoot + "/.build/debug"
    }()

    /// The `bookrule` executable of this build.
    package static var bookrule: String { directory + "/bookrule" }
}

import BookRule

#if canImport(Glibc)
import Glibc
#endif

extension FuzzTarget {
    /// The names `fixture` writes from the input's parts (after `pages.json` and `site.har`); the last is in `sub/`.
    static let fixtureFileNames = ["f0.html", "f1.html", "f2.html", "sub/f3.html"]
    /// What the file outside the fixture directory holds: no page the loader returns may contain it.
    static let fixtureSecret = Array("SECRET-OUTSIDE-THE-FIXTURE".utf8)

    /// A fresh directory per input: `outside/secret.txt` beside `fixture/`, which holds `pages.json`, `site.har`
    /// and the saved files from the input's NUL-separated parts, and, always, what a hostile fixture would
    /// plant: `out.html` (a symlink to the secret), `abs.html` (one by absolute path), `up` (a symlink to
    /// `..`), `fifo.html` (a FIFO) and `sub/`. The directory is loaded as `--saved-dir` and `bookrule test`
    /// load it; the invariant is that every page read is a file written inside it and nothing blocks.
    static func fixture(_ bytes: [UInt8]) -> String? {
        let parts = bytes.split(separator: 0, maxSplits: 5, omittingEmptySubsequences: false).map(Array.init)
        var template = Array("/tmp/bookrule-fuzz-fixture-XXXXXX".utf8CString)
        guard let base = template.withUnsafeMutableBufferPointer({ $0.baseAddress.flatMap(mkdtemp) }).map({ String(cString: $0) }) else {
            return nil
        }
        let directory = base + "/fixture"
        var written: [(String, [UInt8])] = [("outside/secret.txt", fixtureSecret)]
        for (index, name) in (["pages.json", "site.har"] + fixtureFileNames).enumerated() where index < parts.count {
            written.append(("fixture/" + name, parts[index]))
        }
        defer {
            for (name, _) in written { unlink(base + "/" + name) }
            for name in ["out.html", "abs.html", "up", "fifo.html"] { unlink(directory + "/" + name) }
            for folder in [directory + "/sub", directory, base + "/outside", base] { rmdir(folder) }
        }
        for folder in [base + "/outside", directory, directory + "/sub"] { mkdir(folder, 0o700) }
        for (name, content) in written where !writeFixtureFile(base + "/" + name, content) {
            return "could not write \(base)/\(name): \(String(cString: strerror(errno)))"
        }
        symlink("../outside/secret.txt", directory + "/out.html")
        symlink(base + "/outside/secret.txt", directory + "/abs.html")
        symlink("..", directory + "/up")
        mkfifo(directory + "/fifo.html", 0o600)

        let allowed = Set(written.dropFirst().map(\.1))
        if let pages = try? SavedPageDirectory.load(directory) {
            for page in pages where !allowed.contains(page.body) {
                return "\(page.file) gave \(page.body.count) bytes that no file inside the fixture holds"
            }
        }
        _ = try? HARRecording.load(contentsOf: directory + "/site.har")
        return nil
    }

    private static func writeFixtureFile(_ path: String, _ bytes: [UInt8]) -> Bool {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        return bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) } == bytes.count
    }
}

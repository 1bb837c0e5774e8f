import Foundation

/// A real WebDAV server for tests: `scripts/webdav-server.py` (wsgidav on cheroot, from PyPI, which
/// `scripts/install-deps.sh` installs into `.build/webdav-venv`) serving a scratch folder on a loopback port
/// with Basic authentication for one account.
///
/// The server stops when this value goes away (its standard input is closed, then it is terminated), and in
/// any case after `lifetime` seconds (times `TestTime.scale`), so a test that dies cannot leave it running.
package final class WebDAVServer: @unchecked Sendable {
    /// The folder served at `/`; what the server holds is these files.
    package let root: String
    /// `http://127.0.0.1:PORT/`.
    package let baseURL: String
    /// The account's user name.
    package let user: String
    /// The account's password.
    package let password: String

    private let scratch: ScratchDirectory
    private let process: Process
    private let input: Pipe

    /// The Python that has wsgidav: `BOOKRULE_WEBDAV_PYTHON`, else the virtual environment under `.build`.
    package static var python: String {
        ProcessInfo.processInfo.environment["BOOKRULE_WEBDAV_PYTHON"]
            ?? SharedCorpus.repositoryRoot + "/.build/webdav-venv/bin/python3"
    }

    /// Whether the server can be started (its Python exists), for a test's `.enabled(if:)`.
    package static var isAvailable: Bool { FileManager.default.isExecutableFile(atPath: python) }

    /// Starts a server for `user` and `password` and waits (at most 30 s) until it listens.
    package init(user: String = "reader", password: String = "s3cret-pass", lifetime: Double = 120) throws {
        scratch = try ScratchDirectory("webdav")
        root = scratch.path + "/root"
        self.user = user
        self.password = password
        process = Process()
        process.executableURL = URL(fileURLWithPath: Self.python)
        process.arguments = [SharedCorpus.repositoryRoot + "/scripts/webdav-server.py", root, user, password,
                             String(TestTime.seconds(lifetime))]
        input = Pipe()
        let output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        // The first line is "PORT <n>"; read on a thread of its own so the wait is bounded.
        let reader = output.fileHandleForReading
        let found = PortLine()
        let thread = Thread {
            var text = ""
            while !text.contains("\n") {
                let chunk = reader.availableData
                if chunk.isEmpty { break }
                text += String(decoding: chunk, as: UTF8.self)
            }
            found.set(text)
        }
        thread.start()
        guard found.wait(seconds: TestTime.seconds(30)), let line = found.text,
              let port = line.split(separator: "\n").first.flatMap({ $0.hasPrefix("PORT ") ? Int($0.dropFirst(5)) : nil })
        else {
            process.terminate()
            throw TestFailure("the WebDAV server did not start (\(Self.python) scripts/webdav-server.py; "
                + "scripts/install-deps.sh installs wsgidav into .build/webdav-venv)")
        }
        baseURL = "http://127.0.0.1:\(port)/"
        try FileManager.default.createDirectory(atPath: root, withIntermediateDirectories: true)
    }

    deinit {
        try? input.fileHandleForWriting.close()
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }

    /// The bytes of the file at `path` (relative to the served folder), nil when there is none.
    package func file(_ path: String) -> [UInt8]? {
        FileManager.default.contents(atPath: root + "/" + path).map { [UInt8]($0) }
    }

    /// Puts `bytes` at `path` (relative to the served folder), creating its folders: what another device wrote.
    package func put(_ bytes: [UInt8], at path: String) throws {
        let full = root + "/" + path
        try FileManager.default.createDirectory(atPath: (full as NSString).deletingLastPathComponent,
                                                withIntermediateDirectories: true)
        try Data(bytes).write(to: URL(fileURLWithPath: full))
    }

    /// The names in the folder `path` (relative to the served folder), sorted; empty when there is none.
    package func names(in path: String) -> [String] {
        ((try? FileManager.default.contentsOfDirectory(atPath: root + "/" + path)) ?? []).sorted()
    }
}

/// The server's first output line, handed from the reading thread to the waiting one.
private final class PortLine: @unchecked Sendable {
    private let condition = NSCondition()
    private var value: String?
    private var done = false

    func set(_ text: String) {
        condition.lock()
        value = text
        done = true
        condition.broadcast()
        condition.unlock()
    }

    var text: String? {
        condition.lock()
        defer { condition.unlock() }
        return value
    }

    func wait(seconds: Double) -> Bool {
        let deadline = Date(timeIntervalSinceNow: seconds)
        condition.lock()
        defer { condition.unlock() }
        while !done {
            if !condition.wait(until: deadline) { return done }
        }
        return true
    }
}

#if canImport(Glibc)
import BookRuleLocking
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif


/// Where a command writes: standard output for results, standard error for diagnostics. Tests pass a
/// capturing instance. Safe to use from several tasks (request logs arrive from concurrent fetches).
final class Terminal: Sendable {
    private let captured = Locked<(output: String, errors: String)>(("", ""))
    private let capturing: Bool

    /// Everything printed to standard output so far (capturing terminals only).
    var output: String { captured.withLock { $0.output } }
    /// Everything printed to standard error so far (capturing terminals only).
    var errors: String { captured.withLock { $0.errors } }

    /// A terminal writing to the process's stdout and stderr.
    static func standard() -> Terminal { Terminal(capturing: false) }

    /// A terminal that keeps everything in memory.
    static func capture() -> Terminal { Terminal(capturing: true) }

    private init(capturing: Bool) {
        self.capturing = capturing
    }

    /// Writes a line of results.
    func print(_ line: String = "") {
        write(line + "\n", to: STDOUT_FILENO)
    }

    /// Writes diagnostics without a line break (a progress bar redrawn in place).
    func errorRaw(_ text: String) {
        write(text, to: STDERR_FILENO)
    }

    /// Writes a line of diagnostics.
    func error(_ line: String) {
        write(line + "\n", to: STDERR_FILENO)
    }

    private func write(_ text: String, to descriptor: Int32) {
        if capturing {
            captured.withLock { captured in
                if descriptor == STDOUT_FILENO { captured.output += text } else { captured.errors += text }
            }
            return
        }
        var bytes = Array(text.utf8)[...]
        while !bytes.isEmpty {
            let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
            if written < 0 {
                if errno == EINTR { continue }
                return  // A closed pipe (`bookrule toc … | head`) is not an error worth reporting.
            }
            bytes = bytes.dropFirst(written)
        }
    }
}

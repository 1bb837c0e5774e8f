#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Where a command writes: standard output for results, standard error for diagnostics. Tests pass a
/// capturing instance.
final class Terminal: @unchecked Sendable {
    private(set) var output = ""
    private(set) var errors = ""
    private let capturing: Bool

    /// A terminal writing to the process's stdout and stderr.
    static func standard() -> Terminal { Terminal(capturing: false) }

    /// A terminal that keeps everything in memory.
    static func capture() -> Terminal { Terminal(capturing: true) }

    private init(capturing: Bool) {
        self.capturing = capturing
    }

    /// Writes a line of results.
    func print(_ line: String = "") {
        write(line + "\n", to: STDOUT_FILENO, capture: \.output)
    }

    /// Writes a line of diagnostics.
    func error(_ line: String) {
        write(line + "\n", to: STDERR_FILENO, capture: \.errors)
    }

    private func write(_ text: String, to descriptor: Int32, capture: ReferenceWritableKeyPath<Terminal, String>) {
        if capturing {
            self[keyPath: capture] += text
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

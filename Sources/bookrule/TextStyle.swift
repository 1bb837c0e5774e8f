#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Colour for terminal output: on when standard output is a terminal, unless NO_COLOR is set (no-color.org)
/// or TERM is dumb.
struct TextStyle: Sendable {
    let colour: Bool

    static func forStandardOutput() -> TextStyle {
        let environment = ProcessEnvironment.self
        let wanted = isatty(STDOUT_FILENO) == 1 && environment.value("NO_COLOR") == nil && environment.value("TERM") != "dumb"
        return TextStyle(colour: wanted)
    }

    func green(_ text: String) -> String { paint(text, "32") }
    func red(_ text: String) -> String { paint(text, "31") }
    func yellow(_ text: String) -> String { paint(text, "33") }
    func dim(_ text: String) -> String { paint(text, "2") }
    func bold(_ text: String) -> String { paint(text, "1") }

    private func paint(_ text: String, _ code: String) -> String {
        colour ? "\u{1B}[\(code)m\(text)\u{1B}[0m" : text
    }
}

/// Environment variables, read without Foundation's ProcessInfo caching.
enum ProcessEnvironment {
    static func value(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}

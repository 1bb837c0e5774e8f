#if canImport(Glibc)
import Glibc
#endif

/// Asks for a login form's value on standard input: on a terminal with a prompt on stderr (a password with
/// the echo off, through termios, restored whatever happens); otherwise one line per value, without prompts,
/// so `printf 'alice\nsecret\n' | bookrule login …` works.
enum LoginPrompt {
    /// The next value for `label`, nil at the end of the input.
    static func ask(_ label: String, secret: Bool, terminal: Terminal) -> String? {
        let interactive = isatty(STDIN_FILENO) == 1
        guard interactive, secret else {
            if interactive { terminal.errorRaw("\(label): ") }
            return readLine(strippingNewline: true)
        }
        var saved = termios()
        guard tcgetattr(STDIN_FILENO, &saved) == 0 else {
            terminal.errorRaw("\(label): ")
            return readLine(strippingNewline: true)
        }
        var quiet = saved
        quiet.c_lflag &= ~tcflag_t(ECHO)
        // Ctrl-C at the prompt ends the process, which must not leave the terminal without its echo.
        echoing.pointee = saved
        let previous = signal(SIGINT) { number in
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, LoginPrompt.echoing)
            signal(number, SIG_DFL)
            raise(number)
        }
        // The echo goes off before the prompt shows, as getpass does: a password typed (or pasted) as soon as the
        // prompt appears was otherwise echoed, and then discarded by the flush, leaving login waiting for it.
        _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &quiet)
        terminal.errorRaw("\(label): ")
        defer {
            _ = tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved)
            signal(SIGINT, previous)
            terminal.errorRaw("\n")
        }
        return readLine(strippingNewline: true)
    }

    /// The terminal's settings before the echo went off, for the SIGINT handler (which can capture nothing).
    /// Written only before the handler is installed, on the one thread that asks. On the heap, not a global
    /// `termios` variable: AddressSanitizer registered such a global as 57 bytes, and the 60-byte copy into it
    /// failed `make sanitize-address` as a global-buffer-overflow.
    nonisolated(unsafe) private static let echoing: UnsafeMutablePointer<termios> = {
        let pointer = UnsafeMutablePointer<termios>.allocate(capacity: 1)
        pointer.initialize(to: termios())
        return pointer
    }()
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The `bookrule` executable: runs the command line and exits with its status.
@main
struct Entry {
    static func main() async {
        // Output piped into `head` must end quietly, not kill the process with SIGPIPE.
        signal(SIGPIPE, SIG_IGN)
        let status = await BookruleCLI.run(Array(CommandLine.arguments.dropFirst()), terminal: .standard())
        exit(status)
    }
}

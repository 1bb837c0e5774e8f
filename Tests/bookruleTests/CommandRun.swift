@testable import bookrule

/// Runs the command line `words` in this process with a capturing terminal: its exit status, standard output and
/// standard error.
func runCommand(_ words: [String]) async -> (status: Int32, output: String, errors: String) {
    let terminal = Terminal.capture()
    let status = await BookruleCLI.run(words, terminal: terminal)
    return (status, terminal.output, terminal.errors)
}

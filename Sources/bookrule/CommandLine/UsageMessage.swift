/// How a command line that cannot be run is answered: the error and one line saying where the help is, as
/// git and swift-argument-parser do (the whole help would bury the error).
enum UsageMessage {
    /// `error: …` and `see 'bookrule <command> --help'`.
    static func text(_ error: any Error, command: String) -> String {
        "error: \(error)\nsee 'bookrule \(command) --help'"
    }
}

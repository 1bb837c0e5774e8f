import BookRule

/// `--library`, `--convert`, `--no-replace` and `--explain`: which library a command uses and how the text
/// it shows or writes is changed, read once.
struct LibraryOptions {
    /// `--library PATH`.
    static let library = CommandOption.value("--library", "PATH", summary: "The library database (default: "
                                             + "$XDG_DATA_HOME/bookrule/library.sqlite)", completes: .file)
    /// `--convert t2s|s2t`.
    static let convert = CommandOption.choice("--convert", ["t2s", "s2t"], summary: "Convert the export to simplified "
                                              + "(t2s) or traditional (s2t) Chinese (OpenCC)")
    /// `--no-replace` and `--explain`.
    static let replace: [CommandOption] = [
        .flag("--no-replace", summary: "Write the saved text as it is, without the replace rules (bookrule rules)"),
        .flag("--explain", summary: "Say how many matches each replace rule replaced"),
    ]

    /// The library's path: `--library`, else the default.
    let path: String
    /// The conversion `--convert` asks for, nil without it.
    let conversion: ExportConversion?
    /// Whether the library's replace rules apply (not `--no-replace`).
    let replaces: Bool
    /// `--explain`: say each replace rule's hits.
    let explains: Bool

    /// Reads whichever of the four options the command declares.
    init(_ arguments: CommandLineArguments) throws(UsageError) {
        path = arguments.value("--library") ?? LibraryStore.defaultPath()
        replaces = !arguments.has("--no-replace")
        explains = arguments.has("--explain")
        if let value = arguments.value("--convert") {
            guard let conversion = ExportConversion(rawValue: value) else {
                throw UsageError("--convert takes t2s (to simplified) or s2t (to traditional), not \"\(value)\"")
            }
            self.conversion = conversion
        } else {
            conversion = nil
        }
    }
}

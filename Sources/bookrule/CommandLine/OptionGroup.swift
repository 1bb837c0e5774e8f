/// Options a help shows together under one title (`Options:`, `Fetching:`), with a note after them when
/// the group needs one.
struct OptionGroup: Sendable {
    /// The title, without its colon.
    let title: String
    /// The options, in the order shown.
    let options: [CommandOption]
    /// Lines shown after the options, as written (a pointer to another command's help).
    let note: String?

    /// A group under `title`.
    init(_ title: String, _ options: [CommandOption], note: String? = nil) {
        self.title = title
        self.options = options
        self.note = note
    }

    /// The command's own options, under "Options".
    init(_ options: [CommandOption], note: String? = nil) {
        self.init("Options", options, note: note)
    }

    /// The options every fetching command takes, under the title `title`.
    static func fetching(_ title: String = "Fetching") -> OptionGroup {
        OptionGroup(title, FetchOptions.options)
    }
}

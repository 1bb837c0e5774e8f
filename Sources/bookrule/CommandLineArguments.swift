/// The words after the command name, split into options, flags and positionals.
///
/// Hand-written because third-party packages are not available; it follows swift-argument-parser's rules
/// for what users type: `--name value`, `--name=value`, `--` ends options, and errors are values, never
/// exits, so the parser stays testable.
struct CommandLineArguments {
    /// Values given for options that take one, in order.
    private(set) var options: [String: [String]] = [:]
    /// Flags that were given.
    private(set) var flags: Set<String> = []
    /// Everything else, in order.
    private(set) var positionals: [String] = []

    /// Splits `words` knowing which long names take a value and which are flags.
    init(_ words: [String], valueOptions: Set<String>, flagOptions: Set<String>) throws(UsageError) {
        var index = 0
        var onlyPositionals = false
        while index < words.count {
            let word = words[index]
            index += 1
            if onlyPositionals || !word.hasPrefix("-") || word == "-" {
                positionals.append(word)
                continue
            }
            if word == "--" {
                onlyPositionals = true
                continue
            }
            var name = word
            var inlineValue: String?
            if let equals = word.firstIndex(of: "=") {
                name = String(word[..<equals])
                inlineValue = String(word[word.index(after: equals)...])
            }
            if name == "-h" { name = "--help" }
            if valueOptions.contains(name) {
                if let inlineValue {
                    options[name, default: []].append(inlineValue)
                } else {
                    guard index < words.count else { throw UsageError("\(name) needs a value") }
                    options[name, default: []].append(words[index])
                    index += 1
                }
            } else if flagOptions.contains(name) {
                if inlineValue != nil { throw UsageError("\(name) takes no value") }
                flags.insert(name)
            } else {
                throw UsageError("unknown option \(name)")
            }
        }
    }

    /// The last value given for `name`, if any.
    func value(_ name: String) -> String? { options[name]?.last }

    /// Every value given for `name`, in order (options that may repeat).
    func values(_ name: String) -> [String] { options[name] ?? [] }

    /// Whether flag `name` was given.
    func has(_ name: String) -> Bool { flags.contains(name) }

    /// The value of `name` as a positive whole number, or `defaultValue` when absent.
    func positiveInt(_ name: String, default defaultValue: Int, maximum: Int = 1_000_000_000) throws(UsageError) -> Int {
        guard let text = value(name) else { return defaultValue }
        guard let number = Int(text), number > 0, number <= maximum else {
            throw UsageError("\(name) takes a whole number from 1 to \(maximum), not \"\(text)\"")
        }
        return number
    }
}

/// A command line that cannot be run as typed (exit status 2).
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

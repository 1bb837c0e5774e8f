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

    /// Splits `words` by the command's declared options: each option is kept under its long name (`-h` as
    /// `--help`), with the values of those that take one.
    init(_ words: [String], options declared: [CommandOption]) throws(UsageError) {
        var valueOptions: [String: (key: String, words: Int, argument: String)] = [:]
        var flagOptions: [String: String] = [:]
        // Each name typed maps to the key its values are kept under (and for an option with a value, how many
        // words the value takes).
        for option in declared {
            for name in option.names {
                if let argument = option.argument {
                    valueOptions[name] = (option.key, option.wordCount, argument)
                } else {
                    flagOptions[name] = option.key
                }
            }
        }
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
            if let entry = valueOptions[name] {
                let (key, count, argument) = entry
                if let inlineValue, count == 1 {
                    options[key, default: []].append(inlineValue)
                } else {
                    guard inlineValue == nil, index + count <= words.count else {
                        throw UsageError(count == 1 ? "\(name) needs a value"
                                         : "\(name) needs \(argument.split(separator: " ").joined(separator: " and "))")
                    }
                    options[key, default: []] += words[index..<index + count]
                    index += count
                }
            } else if let key = flagOptions[name] {
                if inlineValue != nil { throw UsageError("\(name) takes no value") }
                flags.insert(key)
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

    /// The value of `name` as a number of seconds above 0 and below a day, or `defaultValue` when absent.
    func seconds(_ name: String, default defaultValue: Duration) throws(UsageError) -> Duration {
        guard let text = value(name) else { return defaultValue }
        return try Self.seconds(text, name)
    }

    /// `text`, the value of `name`, as a number of seconds above 0 and below a day.
    static func seconds(_ text: String, _ name: String) throws(UsageError) -> Duration {
        guard let seconds = Double(text), seconds > 0, seconds < 86_400 else {
            throw UsageError("\(name) takes a number of seconds above 0, not \"\(text)\"")
        }
        return .milliseconds(Int64((seconds * 1000).rounded()))
    }
}

/// A command line that cannot be run as typed (exit status 2).
struct UsageError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}

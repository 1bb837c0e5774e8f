import Foundation
import BookRuleJSON
import BookRuleRegex

/// The replace rules a library keeps, in `replace-rules.json` beside it (a JSON array of Legado `replaceRule`
/// objects, so the file can be imported into Legado again), replaced atomically on every change.
public struct ReplaceRuleSet: Sendable, Equatable {
    /// The rules, in the order they were imported (`order` decides the order they run in).
    public var rules: [ReplaceRule]

    /// Creates a set holding `rules`.
    public init(rules: [ReplaceRule] = []) {
        self.rules = rules
    }

    /// Where the replace rules of the library at `libraryPath` are kept.
    public static func path(forLibraryAt libraryPath: String) -> String {
        LibraryStore.folder(ofLibraryAt: libraryPath) + "/replace-rules.json"
    }

    /// The rules kept at `path`; none when the file does not exist.
    /// - Throws: `ReplaceRuleError` when the file cannot be read or is not rules.
    public static func load(from path: String) throws(ReplaceRuleError) -> ReplaceRuleSet {
        guard FileManager.default.fileExists(atPath: path) else { return ReplaceRuleSet() }
        return ReplaceRuleSet(rules: try parse(file: path).rules)
    }

    /// Writes the rules to `path` atomically (the old file or the new one, never half of one).
    public func save(to path: String) throws(ReplaceRuleError) {
        do {
            let bytes = try JSONWriter.bytes(rules, style: .pretty)
            try LocalFile.writeAtomically(bytes, to: path)
        } catch let failure as LocalFile.Failure {
            throw .cannotStore(path: path, reason: failure.reason)
        } catch {
            throw .cannotStore(path: path, reason: "\(error)")
        }
    }

    /// The rules in the Legado JSON file at `path` (one rule object or an array of them), and a warning for
    /// each rule left out: a regex that does not compile, or a JavaScript replacement (`@js:`), which
    /// bookrule does not run.
    /// - Throws: `ReplaceRuleError` for a file that cannot be read, is not JSON (file, line and column), or
    ///   holds something other than rules.
    public static func parse(file path: String) throws(ReplaceRuleError) -> (rules: [ReplaceRule], warnings: [String]) {
        let bytes: [UInt8]
        do {
            // A rules file is small; a FIFO or a device is refused before it is opened.
            bytes = try LocalFile.readRegularFile(path, limit: 32 * 1024 * 1024)
        } catch {
            throw .unreadable(path: path, reason: error.reason)
        }
        let root: JSONNode
        do {
            root = try JSONParser.parse(bytes, lenient: true)
        } catch {
            throw .malformedJSON(path: path, location: error.location.description, message: error.message)
        }
        let objects: [(JSONObject, String)]
        switch root.value {
        case .object(let object):
            objects = [(object, path)]
        case .array(let elements):
            var list: [(JSONObject, String)] = []
            for (index, element) in elements.enumerated() {
                guard let object = element.value.objectValue else {
                    throw .notRules(path: "\(path)[\(index)]", found: element.value.typeName)
                }
                list.append((object, "\(path)[\(index)]"))
            }
            objects = list
        default:
            throw .notRules(path: path, found: root.value.typeName)
        }
        var rules: [ReplaceRule] = []
        var warnings: [String] = []
        for (object, place) in objects {
            let rule = try ReplaceRule(legado: object, path: place)
            if rule.replacement.hasPrefix("@js:") {
                warnings.append("\(place): replace rule \"\(rule.name)\" left out: its replacement is JavaScript (@js:), which bookrule does not run")
                continue
            }
            if let problem = Self.problem(of: rule) {
                warnings.append("\(place): replace rule \"\(rule.name)\" left out: \(problem)")
                continue
            }
            rules.append(rule)
        }
        return (rules, warnings)
    }

    /// Why `rule`'s pattern cannot run, nil when it can.
    package static func problem(of rule: ReplaceRule) -> String? {
        guard rule.isRegex else { return nil }
        do {
            _ = try RegexPattern(rule.pattern)
            return nil
        } catch {
            return "\(error)"
        }
    }

    /// Adds `imported`; a rule with the name of one already kept replaces it in place (importing a newer copy
    /// of a rules file updates its rules instead of doubling them). Returns how many were added and replaced.
    @discardableResult
    public mutating func add(_ imported: [ReplaceRule]) -> (added: Int, replaced: Int) {
        var added = 0
        var replaced = 0
        for rule in imported {
            if let index = rules.firstIndex(where: { $0.name == rule.name }) {
                rules[index] = rule
                replaced += 1
            } else {
                rules.append(rule)
                added += 1
            }
        }
        return (added, replaced)
    }

    /// The rules' Legado ids, in order: each rule's own `id`, or, for a rule without one (or whose id an earlier
    /// rule has), its number (1-based) when that is free, else one past the largest id: every rule a different one.
    public func legadoIDs() -> [Int] {
        var taken = Set<Int>()
        var ids: [Int] = []
        for (index, rule) in rules.enumerated() {
            var id = rule.id ?? index + 1
            if taken.contains(id) { id = taken.contains(index + 1) ? (taken.max() ?? 0) + 1 : index + 1 }
            taken.insert(id)
            ids.append(id)
        }
        return ids
    }

    /// Gives every rule the id `legadoIDs` lists for it, so a rule keeps the id a client was shown.
    public mutating func assignLegadoIDs() {
        for (index, id) in legadoIDs().enumerated() { rules[index].id = id }
    }

    /// Removes rule `number` (1-based, as `bookrule rules list` numbers them) and returns it.
    public mutating func remove(number: Int) throws(ReplaceRuleError) -> ReplaceRule {
        guard number >= 1, number <= rules.count else { throw .noSuchRule(number: number, count: rules.count) }
        return rules.remove(at: number - 1)
    }
}

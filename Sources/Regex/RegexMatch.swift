/// One match of a `RegexPattern` in a subject string.
///
/// A value type that owns copies of the matched text, so it stays valid after the subject and the
/// pattern are gone and can be passed freely between tasks.
public struct RegexMatch: Sendable, Equatable {
    /// Where the whole match lies in the subject, as UTF-8 byte offsets (not `Character` offsets),
    /// because that is what PCRE2 reports and what slices `subject.utf8` exactly.
    public let range: Range<Int>

    /// The text of each group: index 0 is the whole match, index n is capture group n.
    /// An entry is `nil` when its group did not take part in the match (as opposed to matching "").
    /// There is always one entry per group of the pattern plus one, so `groups.count - 1` is the
    /// pattern's capture count.
    public let groups: [String?]

    /// The pattern's named groups (`(?<name>…)`), name to group number, so replacements can expand
    /// `${name}`. Where a name is used by several groups (`(?J)`), it maps to the lowest number.
    public let groupNames: [String: Int]

    /// Builds a match from its parts; `RegexPattern` creates these, tests may too.
    public init(range: Range<Int>, groups: [String?], groupNames: [String: Int] = [:]) {
        self.range = range
        self.groups = groups
        self.groupNames = groupNames
    }

    /// The text of group `group` (0 = whole match), or `nil` when the group did not take part in the
    /// match or does not exist. Whether an unset group should read as "" is left to the caller.
    public subscript(_ group: Int) -> String? {
        guard groups.indices.contains(group) else { return nil }
        return groups[group]
    }

    /// The text of the named group `name`, or `nil` when the group did not take part in the match or
    /// the pattern has no group of that name.
    public subscript(name name: String) -> String? {
        guard let number = groupNames[name] else { return nil }
        return self[number]
    }
}

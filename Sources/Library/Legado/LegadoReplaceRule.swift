import BookRuleJSON

/// A replace rule as Legado's `ReplaceRule` entity, the way Gson writes it. bookrule's rules have no id; the
/// id given is the rule's number in `replace-rules.json` (1-based, as `bookrule rules list` numbers them).
package struct LegadoReplaceRule {
    /// The rule.
    package let rule: ReplaceRule
    /// Its id in the entity.
    package let id: Int

    /// Creates the entity of `rule` with `id`.
    package init(rule: ReplaceRule, id: Int) {
        self.rule = rule
        self.id = id
    }

    /// The entity as Gson writes it.
    package var json: JSONValue {
        LegadoJSON.object([
            ("id", LegadoJSON.number(id)),
            ("name", .string(rule.name)),
            ("group", LegadoJSON.optional(rule.group)),
            ("pattern", .string(rule.pattern)),
            ("replacement", .string(rule.replacement)),
            ("scope", LegadoJSON.optional(rule.scope)),
            ("scopeTitle", .bool(rule.scopeTitle)),
            ("scopeContent", .bool(rule.scopeContent)),
            ("excludeScope", LegadoJSON.optional(rule.excludeScope)),
            ("isEnabled", .bool(rule.isEnabled)),
            ("isRegex", .bool(rule.isRegex)),
            ("timeoutMillisecond", LegadoJSON.number(rule.timeoutMillisecond)),
            ("order", LegadoJSON.number(rule.order)),
        ])
    }
}

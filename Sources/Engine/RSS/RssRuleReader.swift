import BookRuleDocument
import BookRuleRules

/// Reads the fields of one article element (or of the page, for `ruleNextPage`) with an RSS source's rules,
/// as Legado's RssParserByRule reads them. A failing rule leaves its field empty and adds a warning, as a book
/// source's optional fields do (`FieldReader`).
struct RssRuleReader {
    let rules: RssRules
    /// The element (or page) the rules read.
    let context: RuleContext
    let environment: RuleEnvironment
    /// Where to report what each rule did, when someone is checking the source.
    let tracer: (any RuleTracing)?

    /// A one-line field (title, date): markup and entities removed, whitespace collapsed.
    func line(_ field: RssRules.Field, _ warnings: inout Warnings) -> String {
        let value = RuleText.joined(raw(field, &warnings), separator: "\n")
        return HTMLTextFormatter.singleLine(value.text, isMarkup: value.isMarkup)
    }

    /// A field kept as the rule gave it (the description: markup stays markup, as Legado shows it), trimmed.
    func markup(_ field: RssRules.Field, _ warnings: inout Warnings) -> String {
        RuleText.joined(raw(field, &warnings), separator: "\n").text.trimmingASCIIWhitespace()
    }

    /// A URL field (link, image, next page): the first value that resolves against the page; nil when none.
    func url(_ field: RssRules.Field, _ warnings: inout Warnings) -> String? {
        for value in raw(field, &warnings) {
            for line in value.text.split(whereSeparator: \.isNewline) {
                let candidate = line.trimmingASCIIWhitespace()
                if candidate.isEmpty { continue }
                let text = value.isMarkup && HTMLTextFormatter.containsMarkup(candidate)
                    ? HTMLTextFormatter.singleLine(candidate) : candidate
                if let absolute = URLReference.resolve(text, against: environment.baseURL) { return absolute }
                warnings.add("\(field.rawValue): \"\(candidate)\" is not a URL")
            }
        }
        return nil
    }

    /// What the field's rule gave here; nothing (and a warning) when it failed or the field has no rule.
    private func raw(_ field: RssRules.Field, _ warnings: inout Warnings) -> [RuleText] {
        guard let rule = rules[field] else { return [] }
        do {
            let values = try rule.texts(in: context, environment: environment)
            tracer?.record(rule, values: values.map(\.text))
            return values
        } catch {
            tracer?.record(rule, values: [], error: error.description)
            warnings.add(error.description)
            return []
        }
    }
}

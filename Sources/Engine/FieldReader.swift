import BookRuleDocument
import BookRuleRules

/// Reads the optional fields of one list element (or page) and normalises them per kind of field. A failing
/// optional rule leaves its field empty and records a warning instead of failing the whole step.
struct FieldReader {
    let section: RuleSection
    /// The page or element the rules read; a TOC moves one reader along its list elements.
    var context: RuleContext
    let environment: RuleEnvironment
    /// The page's base URL, parsed once for all the links of the page.
    let base: URLReference.Base?
    /// Where to report what each rule did, when someone is checking the source.
    let tracer: (any RuleTracing)?

    init(section: RuleSection, context: RuleContext, environment: RuleEnvironment, base: URLReference.Base? = nil,
         tracer: (any RuleTracing)? = nil) {
        self.section = section
        self.context = context
        self.environment = environment
        self.base = base ?? URLReference.Base(environment.baseURL)
        self.tracer = tracer
    }

    /// A single-line field (name, author, chapter title): markup and entities removed, whitespace collapsed.
    /// Chapter titles keep a leading or trailing IDEOGRAPHIC SPACE, as Legado does (it trims names, not titles).
    /// Entities are decoded once: only values that are still markup are read as markup (see `RuleText`).
    func line(_ field: RuleField, _ warnings: inout Warnings) -> String {
        line(of: raw(field, &warnings), field)
    }

    /// `line(_:_:)` of what the field's rule gave (or threw) here, read for all the list's elements at once
    /// (`evaluatedForEach`).
    func line(_ field: RuleField, _ warnings: inout Warnings, evaluated: Result<[RuleText], RuleError>) -> String {
        line(of: raw(field, &warnings, evaluated: evaluated), field)
    }

    private func line(of values: [RuleText], _ field: RuleField) -> String {
        let value = RuleText.joined(values, separator: "\n")
        if field == .chapterName || field == .title { return HTMLTextFormatter.titleLine(value.text, isMarkup: value.isMarkup) }
        return HTMLTextFormatter.singleLine(value.text, isMarkup: value.isMarkup)
    }

    /// The values (or error) of `field` in each of `elements`, its rule's trailing JavaScript run for all of
    /// them in one go (`Rule.textsOfEach`), in order; nil when the field is to be read element by element:
    /// a traced run, a rule without such a script, a rule a limit stopped earlier in the step, or when another
    /// field of the elements (`others`) runs JavaScript or sets `@put` variables, which one-by-one reading
    /// would interleave with this field's scripts. Fewer outcomes than elements: read the rest one by one.
    func evaluatedForEach(_ field: RuleField, of elements: [RuleContext], others: [RuleField],
                          warnings: Warnings) -> [Result<[RuleText], RuleError>]? {
        guard tracer == nil, let rule = section[field], rule.trailingScript != nil,
              warnings.failure(of: path(of: field))?.hitLimit != true,
              !others.contains(where: { other in section[other].map { !$0.scripts.isEmpty || $0.hasPuts } ?? false })
        else { return nil }
        return rule.textsOfEach(elements, environment: environment)
    }

    /// A multi-paragraph field (intro): paragraphs kept, each trimmed.
    func paragraphs(_ field: RuleField, _ warnings: inout Warnings) -> String {
        Self.text(of: RuleText.joined(raw(field, &warnings), separator: "\n"))
    }

    /// A list field (kind): every non-empty value, comma-separated.
    func list(_ field: RuleField, _ warnings: inout Warnings) -> String {
        raw(field, &warnings)
            .flatMap { Self.text(of: $0).split(whereSeparator: \.isNewline) }
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingParagraphSpace() }
            .filter { !$0.isEmpty }
            .joined(separator: ",")
    }

    /// `line(_:_:)` for one of thousands of list elements: a simple rule read straight off the nodes into
    /// `scratch` makes only the result string; anything else (or a traced run) takes the general path.
    func line(_ field: RuleField, _ warnings: inout Warnings, scratch: inout FieldScratch) -> String {
        guard let rule = section[field] else { return "" }
        let isTitle = field == .chapterName || field == .title
        // Moved out for the closure, which cannot reach `scratch` while its nodes are lent.
        var collapsed: [UInt8] = []
        swap(&collapsed, &scratch.collapsed)
        defer { swap(&collapsed, &scratch.collapsed) }
        guard tracer == nil, let line = rule.withValueNodes(in: context, scratch: &scratch.nodes, { nodes, bytes -> String? in
            // One node whose value libxml2 stores (the usual title) is read where it is, not copied first.
            if nodes.count == 1, let stored = nodes.withStoredValue(at: 0, {
                HTMLTextFormatter.singleLine(utf8: $0, scratch: &collapsed, isTitle: isTitle)
            }) {
                return stored
            }
            bytes.removeAll(keepingCapacity: true)
            for index in 0..<nodes.count {
                if index > 0 { bytes.append(0x0A) }
                nodes.appendValue(at: index, to: &bytes)
            }
            return HTMLTextFormatter.singleLine(utf8: bytes, scratch: &collapsed, isTitle: isTitle)
        }) else { return self.line(field, &warnings) }
        return line ?? ""
    }

    /// A URL field: the first non-empty value, resolved against the page's base URL; nil when empty.
    func url(_ field: RuleField, _ warnings: inout Warnings) -> String? {
        url(of: raw(field, &warnings), field, &warnings)
    }

    /// `url(_:_:)` of what the field's rule gave (or threw) here, read for all the list's elements at once
    /// (`evaluatedForEach`).
    func url(_ field: RuleField, _ warnings: inout Warnings, evaluated: Result<[RuleText], RuleError>) -> String? {
        url(of: raw(field, &warnings, evaluated: evaluated), field, &warnings)
    }

    private func url(of values: [RuleText], _ field: RuleField, _ warnings: inout Warnings) -> String? {
        for value in values {
            if let absolute = absoluteURL(value.text, isMarkup: value.isMarkup, field, &warnings) { return absolute }
        }
        return nil
    }

    /// `url(_:_:)` for one of thousands of list elements: a plain link read straight off a node is resolved
    /// on its bytes; a value with line breaks, markup or Legado options, a rule the fast path cannot read, or
    /// a traced run takes the general path.
    func url(_ field: RuleField, _ warnings: inout Warnings, scratch: inout FieldScratch) -> String? {
        guard let rule = section[field] else { return nil }
        guard tracer == nil, let base else { return url(field, &warnings) }
        /// A plain link resolved on its bytes; nil for anything the general resolution has to look at.
        func resolvedFast(_ bytes: UnsafeBufferPointer<UInt8>) -> String? {
            let kept = UnsafeBufferPointer(rebasing: bytes[SpaceTrimming.range(of: bytes, paragraphSpace: false)])
            // Almost every link holds none of the five bytes that could make it more than a link.
            let plain = !ByteScan.containsAny(kept, 0x0A, 0x0D, UInt8(ascii: "{"), UInt8(ascii: "<"), UInt8(ascii: "&"))
                || (!kept.contains { $0 == 0x0A || $0 == 0x0D || $0 == UInt8(ascii: "{") }
                    && !HTMLTextFormatter.containsMarkup(utf8: kept))
            return plain ? base.fastResolve(utf8: kept) : nil
        }
        let read = rule.withValueNodes(in: context, scratch: &scratch.nodes) { nodes, bytes -> String? in
            for index in 0..<nodes.count {
                // The value where libxml2 stores it (an attribute's text), else copied out.
                let stored = nodes.withStoredValue(at: index) { value -> (fast: String?, text: String) in
                    if let fast = resolvedFast(value) { return (fast, "") }
                    return (nil, String(decoding: value, as: UTF8.self))
                }
                let fast: String?
                let text: String
                if let stored {
                    (fast, text) = stored
                } else {
                    bytes.removeAll(keepingCapacity: true)
                    nodes.appendValue(at: index, to: &bytes)
                    fast = bytes.withUnsafeBufferPointer(resolvedFast)
                    text = fast == nil ? String(decoding: bytes, as: UTF8.self) : ""
                }
                if let fast { return fast }
                if let absolute = absoluteURL(text, isMarkup: false, field, &warnings) { return absolute }
            }
            return nil
        }
        guard let read else { return url(field, &warnings) }
        return read
    }

    /// One value of a URL field resolved: the value itself, else its first line that is a URL.
    private func absoluteURL(_ value: String, isMarkup: Bool, _ field: RuleField, _ warnings: inout Warnings) -> String? {
        if !value.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D }) {
            return resolve(value, isMarkup: isMarkup, field, &warnings)
        }
        for line in value.split(whereSeparator: \.isNewline) {
            if let absolute = resolve(String(line), isMarkup: isMarkup, field, &warnings) { return absolute }
        }
        return nil
    }

    /// One candidate URL resolved against the page; nil (with a warning when it is not a URL) when empty.
    private func resolve(_ value: String, isMarkup: Bool, _ field: RuleField, _ warnings: inout Warnings) -> String? {
        var trimmed = value.trimmingASCIIWhitespace()
        // Legado's `url,{options}` (`,{'webView': true}`) asks for how to fetch, and is not part of the address;
        // options that ask for a browser stay after the resolved URL, for the step that loads it.
        var webViewOptions: String?
        if trimmed.utf8.contains(UInt8(ascii: "{")) {
            let split = URLWithOptions(trimmed)
            if let options = split.options {
                if WebViewOptions.asked(in: options) { webViewOptions = options }
                trimmed = split.address
            }
        }
        if trimmed.isEmpty { return nil }
        let decoded = isMarkup && HTMLTextFormatter.containsMarkup(trimmed) ? HTMLTextFormatter.singleLine(trimmed) : trimmed
        guard let absolute = base?.resolve(decoded) else {
            warnings.add("\(section.name.rawValue).\(field.rawValue): \"\(trimmed)\" is not a URL")
            return nil
        }
        return webViewOptions.map { absolute + "," + $0 } ?? absolute
    }

    /// A yes/no field (isVolume, isVip, isPay): true when the rule yields anything but "", "false", "0" or "null".
    func flag(_ field: RuleField, _ warnings: inout Warnings) -> Bool {
        guard section[field] != nil else { return false }
        let value = raw(field, &warnings).map(\.text).joined().trimmingASCIIWhitespace().lowercased()
        return !(value.isEmpty || value == "false" || value == "0" || value == "null")
    }

    /// Paragraphs of a value: markup read once, text only split and trimmed.
    static func text(of value: RuleText) -> String {
        value.isMarkup ? HTMLTextFormatter.text(fromMarkup: value.text) : HTMLTextFormatter.paragraphs(of: value.text)
    }

    /// `text(of:)` for chapter content: each `<img>` of markup kept as an `ImageLine`, resolved against
    /// `baseURL` (the page's); text that is not markup holds no picture.
    static func contentText(of value: RuleText, baseURL: String) -> String {
        value.isMarkup ? HTMLTextFormatter.contentText(fromMarkup: value.text, baseURL: baseURL)
            : HTMLTextFormatter.paragraphs(of: value.text)
    }

    private func raw(_ field: RuleField, _ warnings: inout Warnings) -> [RuleText] {
        guard let rule = section[field] else { return [] }
        // A rule a limit stopped would be stopped again on every other element (2 s each for a script):
        // it stays empty for the rest of the step, and the warning says why.
        if warnings.limitStoppedAField, warnings.failure(of: path(of: field))?.hitLimit == true { return [] }
        return raw(field, &warnings, evaluated: Result { () throws(RuleError) in
            try rule.texts(in: context, environment: environment)
        })
    }

    /// What the field's rule gave here, or nothing (with the warning, and the failure noted) when it threw;
    /// nothing when a limit stopped the rule earlier in the step.
    private func raw(_ field: RuleField, _ warnings: inout Warnings, evaluated: Result<[RuleText], RuleError>) -> [RuleText] {
        guard let rule = section[field] else { return [] }
        if warnings.limitStoppedAField, warnings.failure(of: path(of: field))?.hitLimit == true { return [] }
        switch evaluated {
        case .success(let values):
            tracer?.record(rule, values: values.map(\.text))
            return values
        case .failure(let error):
            tracer?.record(rule, values: [], error: error.description)
            warnings.add(error.description)
            warnings.noteFailure(of: path(of: field), error)
            return []
        }
    }

    /// The field's path in the source, e.g. `ruleToc.chapterName`.
    private func path(of field: RuleField) -> String {
        "\(section.name.rawValue).\(field.rawValue)"
    }
}

/// Buffers reused across the list elements of a page, so that reading a field of one element makes only the
/// field's string.
struct FieldScratch {
    var nodes = NodeScratch()
    var collapsed: [UInt8] = []
}

/// Warnings for one step, each said once, at most 50 (a rule failing on every chapter says so once), and the
/// first failure of each field, by its path (`ruleToc.chapterName`), for the error that field's emptiness
/// becomes.
struct Warnings {
    private(set) var list: [String] = []
    private var failures: [String: RuleError] = [:]
    /// Whether a limit stopped one of the failures kept (so a field may have to be skipped): checked before
    /// the field's path is made, per element.
    private(set) var limitStoppedAField = false

    mutating func add(_ message: String) {
        guard list.count < 50, !list.contains(message) else { return }
        list.append(message)
    }

    /// Keeps `error` as the field's failure unless one is kept already.
    mutating func noteFailure(of path: String, _ error: RuleError) {
        if failures[path] == nil {
            failures[path] = error
            if error.hitLimit { limitStoppedAField = true }
        }
    }

    /// The first failure of the field at `path` in this step.
    func failure(of path: String) -> RuleError? {
        failures[path]
    }
}

/// What a JSoup-dialect string rule takes from each selected element: the last `@` part of the rule, as in
/// Legado's `AnalyzeByJSoup.getResultLast`. Values that come out empty are dropped.
enum JSoupExtractor: Sendable, Equatable {
    /// `text`: jsoup's `element.text()`: all the element's text, whitespace collapsed and trimmed (block
    /// boundaries and `<br>` become a space; script and style contents are not text). One value per element.
    case text
    /// `textNodes`: the element's own text nodes (not its children's), each with whitespace collapsed and
    /// trimmed, empty ones dropped, joined with "\n". One value per element.
    case textNodes
    /// `ownText`: jsoup's `element.ownText()`: the element's own text nodes joined, whitespace collapsed and
    /// trimmed (a child `<br>` becomes a space). One value per element.
    case ownText
    /// `html`: the selected elements' outer HTML (Legado calls jsoup's `Elements.outerHtml()`, which joins the
    /// elements with "\n"), after removing every `<script>` and `<style>` element inside them. One value for
    /// all the elements together.
    case html
    /// `all`: the same outer HTML with scripts and styles kept. One value for all the elements together.
    case all
    /// Any other name: that attribute's value on each element; blank values and repeats are dropped
    /// (Legado keeps each distinct value once, in order). jsoup reads `abs:href` as `href` resolved against the
    /// page's base URL.
    case attribute(String)

    init(_ name: String) {
        switch name {
        case "text": self = .text
        case "textNodes": self = .textNodes
        case "ownText": self = .ownText
        case "html": self = .html
        case "all": self = .all
        default: self = .attribute(name)
        }
    }
}

/// One rule translated from Legado's JSoup dialect (or `@css:`) into XPath.
package struct JSoupTranslation: Sendable, Equatable {
    /// XPath 1.0 to evaluate with the context node as XPath context; it selects elements, in document order.
    package var xpath: String
    /// For string rules, what to take from each element; nil for list rules.
    var extractor: JSoupExtractor?
    /// Whether Legado yields the elements in reverse document order (an index list such as `[-1:0]` or
    /// `.2:0` in the last segment): reverse the node-set.
    package var reversed: Bool
}

/// Translates one Legado JSoup-dialect rule (`class.list@tag.a@href`, `@@…`) or `@css:` rule into XPath 1.0.
///
/// The rule has no `&&`, `||`, `%%` or `##` (the parser splits those off first). Semantics follow Legado's
/// `AnalyzeByJSoup` (segments split at `@` outside brackets, each applied to every element the previous
/// segment selected) on jsoup 1.15.3:
///
/// | segment | selects, from each context element |
/// |---|---|
/// | `class.x` | the element itself and descendants with class `x` (ignoring case) |
/// | `id.x` | … with `id="x"` |
/// | `tag.x` | … named `x` |
/// | `text.x` | … whose own text contains `x` (ignoring case) |
/// | `children` (or only an index) | the element's child elements |
/// | anything else | the CSS selector (`div.x > a`), via `CSSTranslator` |
///
/// An index may follow the selection: `.n`, `.-n`, `!n` (exclude), `.a:b:c` / `!a:b` (several indexes), or
/// `[1,3:5,-1]`, `[!0]`, `[start:end:step]` (ranges with both ends included, negative numbers counted from the
/// end, out-of-range ends clamped as Legado does). Indexes count the elements the segment selected from one
/// context element, from 0.
///
/// Differences from Legado, where XPath node-sets cannot follow it (see docs/compatibility.md):
/// - results are a set in document order: an element reached from two nested context elements is listed
///   once, where Legado lists it twice;
/// - an index list that yields elements out of document order is either a reversal (`[-1:0]`, `.3:1`), which
///   is reported as `reversed` and allowed only in the last selecting segment, or an error; whether a range
///   mixing positive and negative ends runs backwards is decided assuming the list is longer than the
///   numbers written;
/// - a reversal reverses the whole result, where Legado reverses per context element: the same when one
///   element reaches that segment (`id.list@tag.li[-1:0]`).
package enum JSoupRuleTranslator {
    /// Translates one rule; for string rules (`isList == false`) the last part is the extractor.
    package static func translate(_ rule: String, isList: Bool) throws(CSSTranslationError) -> JSoupTranslation {
        try CSSTranslator.rejectNonXMLCharacters(rule, as: .rule)
        var text = javaTrimmed(rule)
        if text.lowercased().hasPrefix("@css:") {
            text = javaTrimmed(String(text.dropFirst(5)))
            if isList {
                return JSoupTranslation(xpath: try CSSTranslator.xpath(text), extractor: nil, reversed: false)
            }
            guard let at = text.lastIndex(of: "@") else {
                throw CSSTranslationError(.rule, rule, "a @css: string rule needs a final @text, @html, @ownText, @textNodes, @all or @attribute")
            }
            let extractor = javaTrimmed(String(text[text.index(after: at)...]))
            guard !extractor.isEmpty else {
                throw CSSTranslationError(.rule, rule, "the extractor after the last '@' is empty")
            }
            return JSoupTranslation(xpath: try CSSTranslator.xpath(String(text[..<at])),
                                    extractor: JSoupExtractor(extractor), reversed: false)
        }
        // Legado trims leading '@' (so `@@rule` is the rule) and control characters.
        while let first = text.unicodeScalars.first, first == "@" || first.value < 0x21 {
            text.unicodeScalars.removeFirst()
        }
        guard !text.isEmpty else { throw CSSTranslationError(.rule, rule, "the rule is empty") }
        var parts = try splitSegments(text, rule: rule)
        var extractor: JSoupExtractor?
        if !isList {
            let last = javaTrimmed(parts.removeLast())
            guard !last.isEmpty else { throw CSSTranslationError(.rule, rule, "the extractor after the last '@' is empty") }
            extractor = JSoupExtractor(last)
        }
        if parts.contains(where: { javaTrimmed($0).isEmpty }) {
            throw CSSTranslationError(.rule, rule, "a segment between '@'s is empty")
        }
        let segments = try parts.map { (part) throws(CSSTranslationError) -> Segment in try Segment(part) }
        var expression: String?
        var isUnion = false
        var reversed = false
        for (index, segment) in segments.enumerated() {
            let pieces = try segment.xpath(isFirst: expression == nil)
            if segment.reverses {
                guard index == segments.count - 1 else {
                    throw CSSTranslationError(.segment, segment.text, "reversing the order in a segment before the last reorders what later segments find per element, which one XPath node-set cannot express; reverse in the last segment")
                }
                reversed = true
            }
            if let current = expression {
                let prefix = isUnion ? "(\(current))" : current
                expression = pieces.map { "\(prefix)/\($0)" }.joined(separator: " | ")
            } else {
                expression = pieces.joined(separator: " | ")
            }
            isUnion = pieces.count > 1
            if let expression, expression.utf8.count > 65_536 {
                throw CSSTranslationError(.rule, rule, "the translation is longer than 64 KiB")
            }
        }
        return JSoupTranslation(xpath: expression ?? "self::node()", extractor: extractor, reversed: reversed)
    }

    /// Legado's `RuleAnalyzer.splitRule("@")`: `@` separates segments except inside `[…]` or `(…)`, where
    /// quotes and backslash escapes are respected.
    static func splitSegments(_ text: String, rule: String) throws(CSSTranslationError) -> [String] {
        let scalars = Array(text.unicodeScalars)
        var parts: [String] = []
        var current = String.UnicodeScalarView()
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "@" {
                parts.append(String(current))
                current = String.UnicodeScalarView()
                index += 1
                continue
            }
            if scalar == "[" || scalar == "(" {
                let close: Unicode.Scalar = scalar == "[" ? "]" : ")"
                var depth = 0
                var inSingle = false
                var inDouble = false
                var end = index
                var closed = false
                while end < scalars.count {
                    let character = scalars[end]
                    end += 1
                    if character == "'" && !inDouble { inSingle.toggle(); continue }
                    if character == "\"" && !inSingle { inDouble.toggle(); continue }
                    if inSingle || inDouble { continue }
                    if character == "\\" { end += 1; continue }
                    if character == scalar { depth += 1 } else if character == close { depth -= 1 }
                    if depth == 0 { closed = true; break }
                }
                guard closed else {
                    throw CSSTranslationError(.rule, rule, "'\(Character(scalar))' is not closed")
                }
                current.append(contentsOf: scalars[index..<min(end, scalars.count)])
                index = end
                continue
            }
            current.append(scalar)
            index += 1
        }
        parts.append(String(current))
        return parts
    }
}

// MARK: - Segments

/// One `@`-separated part that selects elements: a selection and an optional index filter.
private struct Segment {
    enum Selection {
        case children
        case byClass(String)
        case byTag(String)
        case byID(String)
        case byOwnText(String)
        case css(CSSSelectorList)
    }

    let text: String
    let selection: Selection
    let filter: IndexFilter?

    /// Whether Legado yields this segment's elements in reverse document order.
    var reverses: Bool { filter?.reverses ?? false }

    init(_ raw: String) throws(CSSTranslationError) {
        text = javaTrimmed(raw)
        let parsed = try IndexFilter.parse(text)
        filter = parsed.filter
        selection = try Self.selection(parsed.before, segment: text)
    }

    private static func selection(_ before: String, segment: String) throws(CSSTranslationError) -> Selection {
        if before.isEmpty { return .children }
        // Legado: beforeRule.split(".") and only the first two pieces count.
        let pieces = before.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        let kind = pieces[0]
        func name() throws(CSSTranslationError) -> String {
            guard pieces.count > 1 else {
                throw CSSTranslationError(.segment, segment, "'\(kind)' needs a name after a dot (\(kind).name)")
            }
            return pieces[1]
        }
        switch kind {
        case "children":
            return .children
        case "class":
            let className = javaTrimmed(try name())
            guard !className.isEmpty else { throw CSSTranslationError(.segment, segment, "the class name is empty") }
            return .byClass(className)
        case "tag":
            let tag = javaTrimmed(try name()).lowercased()
            guard !tag.isEmpty else { throw CSSTranslationError(.segment, segment, "the tag name is empty") }
            return .byTag(tag)
        case "id":
            return .byID(try name())
        case "text":
            let needle = try name()
            guard !needle.isEmpty else { throw CSSTranslationError(.segment, segment, "the text to find is empty") }
            return .byOwnText(CSSXPathBuilder.normalizedNeedle(needle))
        default:
            return .css(try CSSTranslator.parse(before))
        }
    }

    /// Relative paths (alternatives) for this segment from one context element.
    func xpath(isFirst: Bool) throws(CSSTranslationError) -> [String] {
        let step: String
        switch selection {
        case .children:
            step = "child::*"
        case .byClass(let name):
            step = "descendant-or-self::*[\(CSSXPathBuilder.classPredicate(name))]"
        case .byTag(let name):
            step = "descendant-or-self::" + (CSSXPathBuilder.nameTest(name) ?? "*[name()=\(CSSXPathBuilder.literal(name))]")
        case .byID(let id):
            step = "descendant-or-self::*[@id=\(CSSXPathBuilder.literal(id))]"
        case .byOwnText(let needle):
            step = "descendant-or-self::*[\(CSSXPathBuilder.ownTextContains(needle))]"
        case .css(let list):
            guard let filter else { return try CSSXPathBuilder.pathBranches(list, excludingContext: false) }
            if isFirst {
                // From the one context node, a filter expression counts over the whole selection.
                let branches = try CSSXPathBuilder.pathBranches(list, excludingContext: false)
                return ["(\(branches.joined(separator: " | ")))[\(filter.predicate)]"]
            }
            return [try positionalStep(list) + "[\(filter.predicate)]"]
        }
        guard let filter else { return [step] }
        return [step + "[\(filter.predicate)]"]
    }

    /// The CSS selection as one step, so a positional predicate counts per context element.
    private func positionalStep(_ list: CSSSelectorList) throws(CSSTranslationError) -> String {
        let asContext: String?
        let asOther: String?
        do throws(CSSTranslationError) {
            asContext = try CSSXPathBuilder.predicate(list, isContext: true)
            asOther = try CSSXPathBuilder.predicate(list, isContext: false)
        } catch {
            throw CSSTranslationError(.segment, text, "an index after the first segment needs the selector as one XPath step, and in \"\(error.piece)\" \(error.reason)")
        }
        guard let asOther else { return "self::node()[false()]" }
        if asContext == nil { return "descendant::*[\(asOther)]" }
        guard asContext == asOther else {
            throw CSSTranslationError(.segment, text, "an index after the first segment counts per context element, and whether an element is that context changes the match; XPath 1.0 cannot tell inside one step")
        }
        return "descendant-or-self::*[\(asOther)]"
    }
}

// MARK: - Indexes

/// Legado's `ElementsSingle` index forms.
private struct IndexFilter {
    enum Item {
        case single(Int)
        case range(start: Int?, end: Int?, step: Int)
    }

    let exclude: Bool
    let items: [Item]
    let reverses: Bool
    /// The XPath predicate (inside `[…]`) keeping the elements Legado keeps.
    let predicate: String

    /// Splits a segment into its selection and index, reading backwards exactly as Legado's `findIndexSet`.
    static func parse(_ text: String) throws(CSSTranslationError) -> (before: String, filter: IndexFilter?) {
        let scalars = Array(text.unicodeScalars)
        guard let lastScalar = scalars.last else { throw CSSTranslationError(.segment, text, "the segment is empty") }
        func string(_ range: Range<Int>) -> String { String(String.UnicodeScalarView(scalars[range])) }
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { ("0"..."9").contains(scalar) }
        func number(_ digits: String, negative: Bool) throws(CSSTranslationError) -> Int {
            guard let value = Int(digits) else {
                throw CSSTranslationError(.segment, text, "an index is missing its number")
            }
            return negative ? -value : value
        }

        if lastScalar == "]" {
            // [it, it, …] or [!it, …]; `it` is n or start:end(:step), read from the end.
            var position = scalars.count - 1
            var digits = ""
            var negative = false
            var pending: [Int?] = []
            var items: [Item] = []
            var exclude = false
            while position > 0 {
                position -= 1
                var scalar = scalars[position]
                if scalar == " " { continue }
                if isDigit(scalar) {
                    digits = String(Character(scalar)) + digits
                    continue
                }
                if scalar == "-" {
                    negative = true
                    continue
                }
                let current: Int? = digits.isEmpty ? nil : try number(digits, negative: negative)
                if scalar == ":" {
                    pending.append(current)
                } else {
                    if pending.isEmpty {
                        guard let current else { break }
                        items.append(.single(current))
                    } else {
                        items.append(.range(start: current, end: pending[pending.count - 1],
                                            step: pending.count == 2 ? (pending[0] ?? 1) : 1))
                        pending.removeAll()
                    }
                    if scalar == "!" {
                        exclude = true
                        repeat {
                            position -= 1
                            guard position >= 0 else {
                                throw CSSTranslationError(.segment, text, "'!' must follow '['")
                            }
                            scalar = scalars[position]
                        } while position > 0 && scalar == " "
                    }
                    if scalar == "[" {
                        let filter = try IndexFilter(exclude: exclude, items: items.reversed(), segment: text)
                        return (javaTrimmed(string(0..<position)), filter)
                    }
                    if scalar != "," { break }
                }
                digits = ""
                negative = false
            }
            return (text, nil)
        }

        // Legado's own form: tag.li.0, tag.li.-1, tag.li!0:3 (':' separates single indexes).
        var position = scalars.count
        var digits = ""
        var negative = false
        var indexes: [Int] = []
        var stopped = false
        while position > 0 {
            position -= 1
            let scalar = scalars[position]
            if scalar == " " { continue }
            if isDigit(scalar) {
                digits = String(Character(scalar)) + digits
                continue
            }
            if scalar == "-" {
                negative = true
                continue
            }
            guard scalar == "!" || scalar == "." || scalar == ":" else {
                stopped = true
                break
            }
            indexes.append(try number(digits, negative: negative))
            if scalar != ":" {
                let filter = try IndexFilter(exclude: scalar == "!", items: indexes.reversed().map(Item.single), segment: text)
                return (javaTrimmed(string(0..<position)), filter)
            }
            digits = ""
            negative = false
        }
        if !stopped {
            // Legado runs off the start of the text here and fails.
            throw CSSTranslationError(.segment, text, "a segment cannot be only a number")
        }
        return (text, nil)
    }

    init(exclude: Bool, items: [Item], segment: String) throws(CSSTranslationError) {
        self.exclude = exclude
        self.items = items
        let conditions = items.map(Self.condition)
        let selected = conditions.count == 1 ? conditions[0] : conditions.map { "(\($0))" }.joined(separator: " or ")
        if exclude {
            predicate = "not(\(selected))"
            reverses = false
            return
        }
        if items.count == 1, case .single(let index) = items[0] {
            // The short forms libxml2 optimises: [3], [last()], [last()-1].
            predicate = index >= 0 ? "\(index + 1)" : index == -1 ? "last()" : "last()\(index + 1)"
        } else {
            predicate = selected
        }
        // Legado lists the kept elements in the order the indexes are written; XPath keeps document order.
        var keys: [(Int, Int)] = []
        for item in items {
            switch item {
            case .single(let index):
                keys.append(Self.key(index))
            case .range(let start, let end, _):
                // A missing start is index 0, a missing end the last element.
                keys.append(start.map(Self.key) ?? (0, 0))
                keys.append(end.map(Self.key) ?? (1, -1))
            }
        }
        let ascending = zip(keys, keys.dropFirst()).allSatisfy { $0 <= $1 }
        let descending = zip(keys, keys.dropFirst()).allSatisfy { $0 >= $1 }
        guard ascending || descending else {
            throw CSSTranslationError(.segment, segment, "the index list picks elements out of document order, and an XPath node-set is always in document order (only a whole reversal, like [-1:0], is kept)")
        }
        reverses = !ascending
    }

    /// Sort key for an index: non-negative n before negative -m (counted from the end of a long list).
    private static func key(_ index: Int) -> (Int, Int) {
        index >= 0 ? (0, index) : (1, index)
    }

    /// The condition on `position()` (1-based) and `last()` for one item, with Legado's clamping.
    private static func condition(_ item: Item) -> String {
        switch item {
        case .single(let index):
            if index >= 0 { return "position()=\(index + 1)" }
            return index == -1 ? "position()=last()" : "position()=last()\(index + 1)"
        case .range(let startIndex, let endIndex, let step):
            // Legado clamps both ends into 0..<len (a missing start is 0, a missing end len-1), then walks from
            // start to end by |step| (a step <= 0 becomes len+step, or 1).
            let start = bound(startIndex, missing: "0")
            let end = bound(endIndex, missing: "(last()-1)")
            let index = "(position()-1)"
            var condition = "(\(index)-\(start))*(\(index)-\(end))<=0"
            let stride: String
            if step > 0 {
                stride = String(step)
            } else {
                stride = "((last()\(signed(step)))*number(\(-step)<last())+number(\(-step)>=last()))"
            }
            if stride != "1" { condition += " and (\(index)-\(start)) mod \(stride)=0" }
            return condition
        }
    }

    /// One end of a range as an expression of `last()`, clamped as Legado does.
    private static func bound(_ value: Int?, missing: String) -> String {
        guard let value else { return missing }
        if value == 0 { return "0" }
        if value > 0 {
            return "(\(value)*number(\(value)<last())+(last()-1)*number(\(value)>=last()))"
        }
        if value == -1 { return "(last()-1)" }
        return "((last()\(signed(value)))*number(\(-value)<=last()))"
    }

    private static func signed(_ value: Int) -> String {
        value >= 0 ? "+\(value)" : "\(value)"
    }
}

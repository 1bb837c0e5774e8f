/// Rewrites an XPath the way community sources mean it: relative to the context node, as JsoupXpath runs it.
///
/// - A leading `//step` matches the context itself and its descendants: `descendant-or-self::step`.
///   When that first step has a positional predicate (`//dd[2]`), standard per-parent positions are kept
///   with `.//dd[2]` (which cannot match the context itself); positions over the whole descendant axis would
///   surprise authors more than that.
/// - A leading `/step` means children of the context: `./step`. From the page, `/html/body` still works
///   because the context is then the document node.
/// - Each branch of a top-level union (`a | b`) is rewritten on its own; anything else is left alone.
enum XPathRewriter {
    static func contextRelative(_ expression: String) -> String {
        let branches = RuleScanner.split(expression, by: "|")
        return branches.map(rewriteBranch).joined(separator: "|")
    }

    private static func rewriteBranch(_ branch: String) -> String {
        let leading = branch.prefix { $0 == " " || $0 == "\t" || $0 == "\n" }
        let body = branch.dropFirst(leading.count)
        if body.hasPrefix("//") {
            let rest = body.dropFirst(2)
            return String(leading) + descendantForm(of: rest)
        }
        if body.hasPrefix("/") {
            return String(leading) + "./" + body.dropFirst()
        }
        return branch
    }

    private static func descendantForm(of rest: Substring) -> String {
        let scalars = Array(rest.unicodeScalars)
        var index = 0
        // A name test, `*`, or a node-type test such as text().
        while index < scalars.count, isNameScalar(scalars[index]) || scalars[index] == "*" { index += 1 }
        if index == 0 {
            // `//@href`, `//(…)`, or something unusual: keep the self-including meaning where it is safe.
            return "descendant-or-self::node()/" + rest
        }
        let name = String(String.UnicodeScalarView(scalars[0..<index]))
        let after = String(String.UnicodeScalarView(scalars[index...]))
        if after.hasPrefix("::") {
            // An explicit axis (`//following-sibling::a`) cannot be folded into descendant-or-self.
            return "descendant-or-self::node()/" + rest
        }
        if after.hasPrefix("(") && !["text", "node", "comment", "processing-instruction"].contains(name) {
            return "descendant-or-self::node()/" + rest
        }
        if after.hasPrefix("["), isPositional(predicateStartingAt: after) {
            return ".//" + rest
        }
        return "descendant-or-self::" + rest
    }

    /// Whether the predicate opening `text` is a position (`[2]`, `[last()]`, `[position()<3]`).
    private static func isPositional(predicateStartingAt text: String) -> Bool {
        var depth = 0
        var inner = ""
        for character in text {
            if character == "[" {
                depth += 1
                if depth == 1 { continue }
            } else if character == "]" {
                depth -= 1
                if depth == 0 { break }
            }
            inner.append(character)
        }
        let trimmed = inner.trimmingASCIIWhitespace()
        if !trimmed.isEmpty && trimmed.allSatisfy({ $0.isASCII && $0.isNumber }) { return true }
        return inner.contains("position()") || inner.contains("last()")
    }

    private static func isNameScalar(_ scalar: Unicode.Scalar) -> Bool {
        scalar.isASCIILetter || ("0"..."9").contains(scalar) || scalar == "_" || scalar == "-" || scalar == "."
            || scalar.value > 0x7F
    }
}

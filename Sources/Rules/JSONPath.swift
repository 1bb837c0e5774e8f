import BookRuleJSON
import BookRuleRegex

/// A JSONPath expression as Legado runs it (through Jayway JsonPath 2.x), compiled once and evaluated
/// against any number of JSON documents.
///
/// Supported forms: `$` (root; `@` at the top level means the root too, and a path without either is read
/// as if it started with `$.`, as Jayway does), `.name`, `['name']` / `["name"]`, `['a','b']`, `.*` / `[*]`,
/// `..name` / `..*` / `..[…]` (deep scan), `[n]` (negative counts from the end), `[a,b]`, slices
/// `[start:end]` and `[start:end:step]`, and filters `[?(…)]` with `@`/`$` paths, string, number,
/// `true`/`false`/`null`, `/regex/flags` and `[list]` literals, the operators `== != === !== < <= > >= =~`
/// and `in nin contains size empty subsetof anyof noneof`, `&&`, `||`, `!`, parentheses and existence tests
/// (`[?(@.k)]`). Path functions (`length()`, `min()`, …) are not supported and are reported at compile time.
///
/// Results follow Jayway: a *definite* path (only single names and single indexes, e.g. `$.data.list`,
/// `$[0].name`, or a final `['a','b']`, which merges the named members into one object) gives the value
/// itself or nothing; an indefinite one (`..`, `*`, filters, slices, index lists, non-final `['a','b']`)
/// gives every match in document order. A missing key, an out-of-range index or a step applied to the
/// wrong kind of value gives no result rather than an error. Details that differ from other JSONPath
/// implementations and are kept on purpose:
/// - a name step never maps over an array (`$.list.name` is empty when `list` is an array);
/// - `..x` visits an object before its members (pre-order); `..*` lists a container's children before
///   descending into them; and, as in Jayway, `..[0].x` reads `.x` of *every* element of each array;
/// - `[start:end]` without a step uses Jayway's arithmetic: `[-2:]` and `[:-1]` count from the end, but
///   `[start:end]` with a negative `end` and non-negative `start` is empty. A step (`[::2]`, `[::-1]`),
///   which Jayway ignores, uses RFC 9535 slice semantics;
/// - `==` between a number and a string compares numerically when the number is on the left and as text
///   when the string is; `<`-style operators only compare two numbers or two strings; `!=` is true when
///   the left path is missing; `=~` matches the whole value.
public struct JSONPath: Sendable {
    /// The expression as given to `init`.
    public let expression: String
    let query: Query

    /// Parses `expression` into steps.
    /// - Throws: `JSONPathError.invalid` naming the problem and its offset (in Unicode scalars).
    public init(_ expression: String) throws(JSONPathError) {
        self.expression = expression
        var parser = Parser(expression)
        self.query = try parser.parseExpression()
    }

    /// Whether the path can match at most one value (Jayway's "definite" path). A definite path whose
    /// value is an array still yields that one array.
    public var isDefinite: Bool { query.isDefinite }

    /// Every value the path selects from `root`, in document order; empty when nothing matches.
    public func evaluate(_ root: JSONValue) -> [JSONValue] {
        query.results(on: root, root: root)
    }
}

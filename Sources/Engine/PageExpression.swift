/// Integer arithmetic on the page number inside `{{…}}`: `page`, numbers, `+ - * /` and parentheses.
struct PageExpression: Sendable {
    private indirect enum Node: Sendable {
        case page
        case number(Int)
        case binary(Character, Node, Node)
        case negate(Node)
    }

    private let root: Node

    /// Parses `text`, or returns nil when it is anything else (which would be JavaScript).
    init?(_ text: String) {
        // Parsed recursively: anything this long is not arithmetic on a page number anyway.
        guard text.utf8.count <= 200 else { return nil }
        var parser = Parser(tokens: Array(text.filter { !$0.isWhitespace }))
        guard let node = parser.expression(), parser.index == parser.tokens.count else { return nil }
        root = node
    }

    /// The value for a page number (division by zero gives 0 rather than trapping).
    func value(page: Int) -> Int {
        Self.evaluate(root, page: page)
    }

    private static func evaluate(_ node: Node, page: Int) -> Int {
        switch node {
        case .page: return page
        case .number(let value): return value
        case .negate(let inner): return 0 &- evaluate(inner, page: page)
        case .binary(let op, let left, let right):
            let lhs = evaluate(left, page: page), rhs = evaluate(right, page: page)
            switch op {
            case "+": return lhs &+ rhs
            case "-": return lhs &- rhs
            case "*": return lhs &* rhs
            default:
                // Division by zero, and Int.min / -1 which overflows, give 0 rather than trapping.
                let (quotient, overflow) = lhs.dividedReportingOverflow(by: rhs)
                return rhs == 0 || overflow ? 0 : quotient
            }
        }
    }

    private struct Parser {
        let tokens: [Character]
        var index = 0

        mutating func expression() -> Node? {
            guard var left = term() else { return nil }
            while index < tokens.count, tokens[index] == "+" || tokens[index] == "-" {
                let op = tokens[index]
                index += 1
                guard let right = term() else { return nil }
                left = .binary(op, left, right)
            }
            return left
        }

        mutating func term() -> Node? {
            guard var left = factor() else { return nil }
            while index < tokens.count, tokens[index] == "*" || tokens[index] == "/" {
                let op = tokens[index]
                index += 1
                guard let right = factor() else { return nil }
                left = .binary(op, left, right)
            }
            return left
        }

        mutating func factor() -> Node? {
            guard index < tokens.count else { return nil }
            let token = tokens[index]
            if token == "(" {
                index += 1
                guard let inner = expression(), index < tokens.count, tokens[index] == ")" else { return nil }
                index += 1
                return inner
            }
            if token == "-" {
                index += 1
                return factor().map(Node.negate)
            }
            if token.isASCII && token.isNumber {
                var value = 0
                while index < tokens.count, tokens[index].isASCII, let digit = tokens[index].wholeNumberValue {
                    guard value < 100_000_000 else { return nil }
                    value = value * 10 + digit
                    index += 1
                }
                return .number(value)
            }
            for name in ["searchPage", "page"] where tokens[index...].starts(with: Array(name)) {
                index += name.count
                return .page
            }
            return nil
        }
    }
}

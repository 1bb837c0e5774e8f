import BookRule
import BookRuleDocument
import BookRuleRules

extension FuzzTarget {
    static func rule(_ bytes: [UInt8]) -> String? {
        let (selector, rest) = selector(bytes)
        let kinds: [RuleKind] = [.string, .list, .groupField]
        let kind = kinds[Int(selector % 3)]
        let context = FuzzContexts.context(selector / 3)
        let text = text(rest)
        _ = RuleParser.dialect(of: text, kind: kind)
        guard let rule = try? RuleParser.parse(text, field: "fuzz", kind: kind) else { return nil }
        let environment = RuleEnvironment(baseURL: FuzzContexts.baseURL, variables: RuleVariables(["k": "v"]))
        switch kind {
        case .list:
            guard let elements = try? rule.elements(in: context, environment: environment) else { return nil }
            // Field rules read list elements: run a fixed one on each, as the engine would.
            if let field = try? RuleParser.parse("text", field: "fuzz", kind: .string) {
                for element in elements.prefix(8) { _ = try? field.string(in: element, environment: environment) }
            }
        case .string, .groupField:
            _ = try? rule.strings(in: context, environment: environment)
            _ = try? rule.texts(in: context, environment: environment)
        }
        return nil
    }

    static func css(_ bytes: [UInt8]) -> String? {
        let (selector, rest) = selector(bytes)
        let text = text(rest)
        let xpath: String
        switch selector % 3 {
        case 0:
            guard let translated = try? CSSTranslator.xpath(text) else { return nil }
            xpath = translated
        default:
            guard let translation = try? JSoupRuleTranslator.translate(text, isList: selector % 3 == 1) else { return nil }
            xpath = translation.xpath
        }
        // A translation is only as good as the XPath it gives: libxml2 must accept it.
        let expression: XPathExpression
        do {
            expression = try XPathExpression(xpath)
        } catch {
            return "\(text) translated to XPath libxml2 rejects: \(xpath) (\(error))"
        }
        if let document = FuzzContexts.document {
            do {
                _ = try expression.evaluate(at: document.root)
            } catch {
                return "\(text) translated to XPath that fails to evaluate: \(xpath) (\(error))"
            }
        }
        return nil
    }
}

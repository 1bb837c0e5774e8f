import BookRuleDocument

extension Rule {
    /// The JavaScript step this rule ends in, when every element's input to it is known without running
    /// JavaScript: a string rule without `@put` made of rule steps without JavaScript followed by one `@js:`
    /// or `<js>` step (without `{{…}}`). Its values for the thousands of elements of a list can then come from
    /// one `ScriptEachEvaluating.runEach` (`textsOfEach`) instead of one evaluation per element.
    package var trailingScript: ScriptSnippet? {
        guard puts.isEmpty, kind != .list, case .chain(let steps, let chainKind) = body, chainKind != .list,
              steps.count >= 2, case .script(let snippet) = steps[steps.count - 1] else { return nil }
        for step in steps.dropLast() {
            guard case .rule(let rule) = step else { return nil }
            var found: [ScriptSnippet] = []
            rule.collectScripts(into: &found)
            if !found.isEmpty { return nil }
        }
        return snippet
    }

    /// The simple path of a chain of one rule step and the script, when that step reads node values (see
    /// `XPathRule.readsNodeValues`; for a rule without a dialect, its page reading).
    private static func nodeValuePath(before steps: [ChainStep]) -> SimpleXPath? {
        guard steps.count == 2, case .rule(var first) = steps[0] else { return nil }
        if case .byContent(let page, _) = first { first = page }
        guard case .xpath(let rule) = first, rule.readsNodeValues else { return nil }
        return rule.simple
    }

    /// Whether the rule sets `@put` variables.
    package var hasPuts: Bool { !puts.isEmpty }

    /// What `texts(in:environment:)` gives (or throws) in each of `contexts`, in order, the rule steps run per
    /// context and the `trailingScript` for all of them in one `runEach`; nil when the rule has no trailing
    /// script or the environment's script cannot run it so (then read each context on its own).
    ///
    /// Fewer outcomes than contexts when a limit stopped the rule (a rule step's, or the script's time limit:
    /// the last outcome is then that error) or the run for all was cut short: the caller reads the contexts
    /// after the last outcome one by one, as before.
    package func textsOfEach(_ contexts: [RuleContext], environment: RuleEnvironment) -> [Result<[RuleText], RuleError>]? {
        guard let snippet = trailingScript, let script = environment.script as? any ScriptEachEvaluating,
              script.runsEach(snippet), case .chain(let steps, let kind) = body else { return nil }
        var outcomes: [Result<[RuleText], RuleError>?] = Array(repeating: nil, count: contexts.count)
        var inputs: [String] = []
        inputs.reserveCapacity(contexts.count)
        // For each input, the index of its context and whether its value is markup.
        var owners: [(index: Int, isMarkup: Bool)] = []
        owners.reserveCapacity(contexts.count)
        var end = contexts.count
        let valuePath = environment.keepsPictures ? nil : Self.nodeValuePath(before: steps)
        var scratch = NodeScratch()
        for (index, context) in contexts.enumerated() {
            // The per-chapter fast path: the values straight off the nodes, joined by line breaks, as
            // `XPathRule.texts` reads them (text, not markup), making only the input string.
            if let valuePath, case .node(let node) = context, !context.isJSON,
               let input = valuePath.withNodes(at: node, scratch: &scratch, { nodes, bytes -> String? in
                   // One node whose value libxml2 stores (the usual title): its string made where it lies.
                   if nodes.count == 1, let stored = nodes.withStoredValue(at: 0, { String(decoding: $0, as: UTF8.self) }) {
                       return stored
                   }
                   bytes.removeAll(keepingCapacity: true)
                   for position in 0..<nodes.count {
                       if position > 0 { bytes.append(0x0A) }
                       nodes.appendValue(at: position, to: &bytes)
                   }
                   return String(decoding: bytes, as: UTF8.self)
               }) {
                inputs.append(input ?? "")
                owners.append((index, false))
                continue
            }
            do {
                guard let input = try RuleChain.scriptInput(steps.dropLast(), kind: kind, in: context,
                                                            environment: environment) else { return nil }
                inputs.append(input.text)
                owners.append((index, input.isMarkup))
            } catch {
                let failure = wrap(error)
                outcomes[index] = .failure(failure)
                // A rule a limit stopped is not run on the rest of the list.
                if failure.hitLimit {
                    end = index + 1
                    break
                }
            }
        }
        guard let ran = script.runEach(snippet, results: inputs, environment: environment) else { return nil }
        for (position, outcome) in ran.enumerated() {
            let owner = owners[position]
            switch outcome {
            case .success(let value): outcomes[owner.index] = .success(value.strings.map { RuleText($0, isMarkup: owner.isMarkup) })
            case .failure(let error): outcomes[owner.index] = .failure(wrap(error))
            }
        }
        if ran.count < owners.count { end = min(end, owners[ran.count].index) }
        var given: [Result<[RuleText], RuleError>] = []
        given.reserveCapacity(end)
        for outcome in outcomes[..<end] {
            guard let outcome else { break }
            given.append(outcome)
        }
        return given
    }
}

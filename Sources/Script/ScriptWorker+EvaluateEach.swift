import CJavaScriptCore
import BookRuleRules

/// One field's snippet run for all the elements of a list in one call into the engine (issue #22): a TOC of
/// 5,000 chapters whose title ends in `@js:` entered the virtual machine 5,000 times, each entry with the time
/// limit armed (which reads the thread's CPU clock, a system call), each with its own strings, arguments and
/// result copied across.
extension ScriptWorker {
    /// The function behind `eachRunner`: calls `snippet` (a compiled snippet's function) with `parameters`
    /// (filled as for one evaluation), `result` each of the pieces of `text` between `bounds` in turn, for the
    /// first `count`, and writes each completion value to `outputs`. A string value is also appended to one
    /// string, left in `outputs` after the last, with its length in `lengths` (-1 for any other value): the
    /// inputs and the string results cross between Swift and the engine as one string each way instead of one
    /// per element. It stops at the first element that throws or whose value is an object or a function, and
    /// leaves that element's index in `elementIndex`: what it threw or returned is read one evaluation at a
    /// time from there (`evaluate`), whose conversion runs under the time limit, where reading a getter or a
    /// `toString` a snippet wrote could otherwise run without one. Before each element it writes the element's
    /// index to `elementIndex` (see `WatchdogState.element`) and restarts the fixed clock when `reset` is given;
    /// after each it removes the globals the snippet left when `cleanup` is given.
    ///
    /// Strict, so no snippet reaches it or its arguments through `caller`; `outputs` comes with its elements
    /// made (an index setter a snippet put on `Array.prototype` is never called); `Reflect.apply` and
    /// `substring` are taken when the prelude loads, before any source's code runs (which could replace them).
    static let eachRunnerSource = """
        (function () {
            'use strict';
            const apply = Reflect.apply;
            const cut = Function.prototype.call.bind(String.prototype.substring);
            return function (snippet, parameters, text, bounds, outputs, lengths, count, elementIndex, cleanup, reset, milliseconds, seedHigh, seedLow) {
                let joined = '';
                let index = 0;
                for (; index < count; index++) {
                    elementIndex[0] = index;
                    if (typeof reset === 'function') reset(milliseconds, seedHigh, seedLow);
                    parameters[0] = cut(text, bounds[index], bounds[index + 1]);
                    lengths[index] = -1;
                    let value;
                    let plain = true;
                    try {
                        value = apply(snippet, undefined, parameters);
                        plain = value === null || (typeof value !== 'object' && typeof value !== 'function');
                    } catch (error) {
                        plain = false;
                    }
                    if (typeof cleanup === 'function') {
                        try { cleanup(); } catch (error) { /* as after one evaluation: ignored */ }
                    }
                    if (!plain) break;
                    outputs[index] = value;
                    if (typeof value === 'string') {
                        lengths[index] = value.length;
                        joined += value;
                    }
                }
                outputs[count] = joined;
                elementIndex[0] = index;
            };
        })()
        """

    /// At most this many elements per call: what one call holds in the engine at once (the inputs and the
    /// outputs) stays small next to the heap limit, whatever the page.
    static let eachChunkElements = 2048
    /// At most this many UTF-8 bytes of input per call (one longer input is a call of its own).
    static let eachChunkBytes = 1 << 20

    /// Whether `evaluateEach` runs `snippet`: at the top level (not nested in another evaluation), without a
    /// `jsLib` (whose functions may reach anything), a snippet that compiles and whose text shows that its
    /// value depends on its `result` and the step's bindings alone (`SnippetReading.runsForEach`).
    func evaluatesEach(_ snippet: ScriptSnippet) -> Bool {
        guard frames.isEmpty, !hasJSLib, eachRunner != nil, let compiled = try? compiledSnippet(snippet) else { return false }
        return compiled.reading.runsForEach
    }

    /// Runs `snippet` with `result` each of `results` (text) in turn, as `evaluate` would one by one, in one
    /// call into the engine per chunk (`eachChunkElements`, `eachChunkBytes`), and gives for each result what
    /// `evaluate` would have given or thrown. nil when `evaluatesEach(snippet)` is false.
    ///
    /// Every element has the time limit of one evaluation, counted from when the watchdog sees it start
    /// (the limit is armed once per call). Fewer outcomes than results when a call was stopped: by the time
    /// limit, the last outcome is that element's `.timeLimit`; by the heap limit, an element that threw or
    /// gave an object (see `eachRunnerSource`), or anything else, the outcomes end before that element, for the
    /// caller to evaluate one by one from there (the heap the call held for the other elements is then let go).
    func evaluateEach(_ snippet: ScriptSnippet, bindings: ScriptBindings, results: [String],
                      environment: RuleEnvironment) -> [Result<RuleValue, ScriptError>]? {
        guard evaluatesEach(snippet), let prelude, let eachRunner, let elementIndex,
              let compiled = try? compiledSnippet(snippet) else { return nil }
        // The snippet reaches no helper (a helper reached anyway stops the call: see `Frame.batched`), so nothing
        // reads the frame's content; it names the field.
        frames.append(Frame(field: snippet.field, content: .text(""), contentTree: nil, environment: environment, batched: true))
        defer { frames.removeLast() }
        var outcomes: [Result<RuleValue, ScriptError>] = []
        outcomes.reserveCapacity(results.count)
        var start = 0
        while start < results.count {
            var end = start
            var bytes = 0
            while end < results.count, end - start < Self.eachChunkElements,
                  end == start || bytes + results[end].utf8.count <= Self.eachChunkBytes {
                bytes += results[end].utf8.count
                end += 1
            }
            let call = EachCall(compiled: compiled, runner: eachRunner, elementIndex: elementIndex, field: snippet.field)
            guard run(call, prelude: prelude, bindings: bindings, results: results[start..<end], into: &outcomes) else { break }
            start = end
        }
        return outcomes
    }

    /// What one call of `eachRunner` runs.
    private struct EachCall {
        let compiled: CompiledSnippet
        let runner: JSObjectRef
        let elementIndex: UnsafeMutablePointer<Int32>
        /// The field, for the errors.
        let field: String
    }

    /// One call of `eachRunner` over `results`, the outcomes appended to `outcomes`; false when the call was
    /// stopped before the last result (see `evaluateEach`).
    private func run(_ call: EachCall, prelude: PreludeFunctions, bindings: ScriptBindings, results: ArraySlice<String>,
                     into outcomes: inout [Result<RuleValue, ScriptError>]) -> Bool {
        var units: [UInt16] = []
        var starts: [Int32] = []
        starts.reserveCapacity(results.count + 1)
        for text in results {
            starts.append(Int32(clamping: units.count))
            JSStrings.appendUTF16(of: text, to: &units)
        }
        guard units.count < Int32.max else { return false }
        starts.append(Int32(units.count))
        guard let text = units.withUnsafeBufferPointer({ engine.keptString(units: $0) }),
              let bounds = engine.keptInt32Array(count: results.count + 1),
              let lengths = engine.keptInt32Array(count: results.count),
              let outputs = engine.keptArray(count: results.count + 1),
              let elementArray = engine.kept("elementIndex") else { return false }
        defer {
            for value in [text, bounds, lengths, outputs] { engine.release(value) }
        }
        guard engine.withElements(of: bounds, { $0.update(fromContentsOf: starts) }) == starts.count else { return false }
        call.elementIndex.pointee = -1
        helperRefusedAt = nil
        let parameterCount = CompiledSnippet.parameterCount + (call.compiled.code == nil ? 0 : 1)
        let stop = withUnsafeTemporaryAllocation(of: JSValueRef?.self, capacity: parameterCount) { parameters -> JSError? in
            withUnsafeTemporaryAllocation(of: JSValueRef?.self, capacity: 13) { arguments -> JSError? in
                // On the stack, which the collector scans: the values made here stay alive through the call.
                parameters.initialize(repeating: nil)
                arguments.initialize(repeating: nil)
                do throws(JSError) {
                    try fill(UnsafeMutableBufferPointer(rebasing: parameters[..<CompiledSnippet.parameterCount]),
                             names: call.compiled.reading.names, prelude: prelude, bindings: bindings, result: .text(""),
                             context: .text(""))
                    if let code = call.compiled.code { parameters[CompiledSnippet.parameterCount] = code }
                    arguments[0] = call.compiled.function
                    arguments[1] = engine.array(of: parameters)
                    arguments[2] = text
                    arguments[3] = bounds
                    arguments[4] = outputs
                    arguments[5] = lengths
                    arguments[6] = engine.make(.number(Double(results.count)))
                    arguments[7] = elementArray
                    if call.compiled.reading.mayCreateGlobals { arguments[8] = prelude.cleanup }
                    if case .fixed(let milliseconds, let seed) = host.clock, let reset = engine.kept("resetClock") {
                        arguments[9] = reset
                        arguments[10] = engine.make(.number(Double(milliseconds)))
                        arguments[11] = engine.make(.number(Double(seed >> 32)))
                        arguments[12] = engine.make(.number(Double(seed & 0xFFFF_FFFF)))
                    }
                    _ = try engine.invoke(call.runner, arguments, limits: limits, element: call.elementIndex)
                    return nil
                } catch {
                    return error
                }
            }
        }
        // Where the call stopped, or the element at which a helper was refused, whichever came first.
        let stoppedAt = Int(call.elementIndex.pointee)
        let reached = min(stoppedAt, helperRefusedAt.map { Int($0) } ?? Int.max)
        if stop == nil, reached == results.count, appendJoined(outputs: outputs, lengths: lengths,
                                                              count: results.count, field: call.field, into: &outcomes) {
            return true
        }
        // Each value before `reached` is a primitive (the runner stops at any other): reading it runs no script.
        for offset in 0..<min(max(reached, 0), results.count) {
            outcomes.append(outcome(at: offset, outputs: outputs, field: call.field))
        }
        guard let stop else { return reached == results.count }
        if stop.kind == .timeLimit, reached == stoppedAt, reached >= 0, reached < results.count {
            outcomes.append(.failure(Self.scriptError(stop, field: call.field, limits: limits)))
        }
        return false
    }

    /// The outcomes of a call that ran every element: each string value cut out of the one string the runner
    /// joined them into (each piece converted on its own, as one evaluation converts its string), any other
    /// (primitive) value read from `outputs`. False, and nothing appended, when the joined string or the lengths
    /// cannot be read.
    private func appendJoined(outputs: JSObjectRef, lengths: JSObjectRef, count: Int, field: String,
                              into outcomes: inout [Result<RuleValue, ScriptError>]) -> Bool {
        guard let joined = engine.element(at: count, of: outputs),
              let stringLengths = engine.withElements(of: lengths, { Array($0) }), stringLengths.count == count else { return false }
        let pieces = engine.withUTF16(of: joined) { units -> [String]? in
            var pieces: [String] = []
            pieces.reserveCapacity(count)
            var start = 0
            for length in stringLengths where length >= 0 {
                let end = start + Int(length)
                guard end <= units.count else { return nil }
                pieces.append(JSStrings.utf8String(of: UnsafeBufferPointer(rebasing: units[start..<end])))
                start = end
            }
            return start == units.count ? pieces : nil
        }
        guard let found = pieces, let pieces = found else { return false }
        var next = 0
        for offset in 0..<count {
            if stringLengths[offset] >= 0 {
                outcomes.append(.success(.text(pieces[next])))
                next += 1
            } else {
                outcomes.append(outcome(at: offset, outputs: outputs, field: field))
            }
        }
        return true
    }

    /// The outcome of element `offset` of a call: its completion value (a primitive) as a rule value, as
    /// `evaluate` gives it.
    private func outcome(at offset: Int, outputs: JSObjectRef, field: String) -> Result<RuleValue, ScriptError> {
        guard let output = engine.element(at: offset, of: outputs) else {
            return .failure(Self.scriptError(JSError(kind: .thrown, message: "the engine returned nothing"), field: field,
                                             limits: limits))
        }
        do {
            return .success(ruleValue(of: try engine.value(of: output)))
        } catch {
            return .failure(Self.scriptError(error, field: field, limits: limits))
        }
    }
}

import BookRuleScript
import Foundation
import Testing

/// The cases `scripts/rhino-differential.py` took from the corpus, with Rhino's answers.
private struct Differential: Decodable {
    struct Case: Decodable {
        var id: String
        var code: String
        var input: String
        var rhino: String
    }

    var driver: String
    var cases: [Case]
}

private let fixturePath = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .appendingPathComponent("RhinoDifferential.json").path

/// Cases where JavaScriptCore legitimately answers differently from Rhino 1.7.14 (Debian's; Legado ships 1.8),
/// by case id, with why.
private let knownDifferences: [String: String] = [:]

@Suite("Script: differential check against Rhino on real pure-JavaScript snippets")
struct RhinoDifferentialTests {
    @Test("every sampled snippet gives Rhino's answer, or a known, explained difference")
    func agreesWithRhino() throws {
        let fixture = try JSONDecoder().decode(Differential.self, from: Data(contentsOf: URL(fileURLWithPath: fixturePath)))
        #expect(fixture.cases.count >= 100)
        let runtime = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost())
        var ours: [String: [String: String]] = [:]
        for item in fixture.cases {
            let literal = String(decoding: try JSONEncoder().encode(item.code), as: UTF8.self)
            let value = try runtime.text(fixture.driver + "\n__run(\(literal), result)", result: .text(item.input))
            ours[item.id] = ["value": value, "why": knownDifferences[item.id] ?? ""]
            if let why = knownDifferences[item.id] {
                #expect(value != item.rhino, "\(item.id) is listed as a difference (\(why)) but agrees now")
            } else {
                #expect(value == item.rhino, "\(item.id): \(item.code)")
            }
        }
        if let path = ProcessInfo.processInfo.environment["BOOKRULE_DIFFERENTIAL_OUT"] {
            try JSONEncoder().encode(ours).write(to: URL(fileURLWithPath: path))
        }
    }
}

@Suite("Script: where JavaScriptCore and Rhino legitimately differ")
struct EngineDifferenceTests {
    @Test("const in a loop is per iteration here (Rhino 1.7 scopes it to the function and gives 0,0,0)")
    func constInLoop() throws {
        let runtime = try ScriptRuntime(jsLib: nil, host: RecordingScriptHost())
        #expect(try runtime.text("var fs = []; for (var i = 0; i < 3; i++) { const c = i; fs.push(() => c) } fs.map(f => f()).join()")
            == "0,1,2")
    }
}
